// test_kernel_cache.cpp — the kernel cache's safety rules (docs/jit.md): the entry
// trailer (size, key, ABI, checksum checked from the file's bytes before any
// load), owner and mode checks of entries and the directory, links never
// followed, and entries loaded by descriptor in one process without the
// loader mistaking one for another.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "compiler/graph.h"
#include "compiler/kernel_cache.h"
#include "compiler/kernel_object.h"
#include "runtime/tensor.h"
#include "stdlib/builtins.h"

using namespace kiln;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/kiln-cache-test-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

void write_file(const std::string &path, const std::string &bytes, mode_t mode = 0600) {
  unlink(path.c_str());
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, mode);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, bytes.data(), bytes.size()) == ssize_t(bytes.size()));
  REQUIRE(fchmod(fd, mode) == 0);  // exact, whatever the umask
  close(fd);
}

// A stand-in for a shared object: only the first four bytes are looked at
// before loading, the rest is covered by the checksum.
std::string fake_object() {
  std::string so =
      "\x7f"
      "ELF";
  for (int i = 0; i < 300; i++) so += char(i * 37);
  return so;
}

const std::string kKey = kernel_key_text("params 1\n0 param 2x3 ten p0\noutputs 0t\n");

EntryState check_file(const std::string &path, const std::string &key, std::string &why) {
  int fd = open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  EntryState s = check_cache_entry(fd, key, why);
  close(fd);
  return s;
}

}  // namespace

TEST_CASE("kernel cache: a complete entry for this key is valid", "[jit][kernel_cache]") {
  TempDir d;
  std::string so = fake_object(), entry = so + cache_entry_suffix(so, kKey), why;
  CHECK(entry.size() == so.size() + kKey.size() + kEntryTrailerSize);
  write_file(d.path + "/e.so", entry);
  CHECK(check_file(d.path + "/e.so", kKey, why) == EntryState::Valid);
  // Readable by others is harmless; only writing is not.
  write_file(d.path + "/e.so", entry, 0644);
  CHECK(check_file(d.path + "/e.so", kKey, why) == EntryState::Valid);
}

TEST_CASE("kernel cache: every truncation of an entry is damaged", "[jit][kernel_cache]") {
  TempDir d;
  std::string so = fake_object(), entry = so + cache_entry_suffix(so, kKey);
  for (size_t len = 0; len < entry.size(); len++) {
    INFO("truncated to " << len << " of " << entry.size() << " bytes");
    write_file(d.path + "/e.so", entry.substr(0, len));
    std::string why;
    CHECK(check_file(d.path + "/e.so", kKey, why) == EntryState::Damaged);
    CHECK(!why.empty());
  }
  // Bytes appended after the trailer break the recorded sizes too.
  write_file(d.path + "/e.so", entry + "x");
  std::string why;
  CHECK(check_file(d.path + "/e.so", kKey, why) == EntryState::Damaged);
}

TEST_CASE("kernel cache: another key, ABI, a flipped bit or a non-ELF body is damaged",
          "[jit][kernel_cache]") {
  TempDir d;
  std::string so = fake_object(), path = d.path + "/e.so", why;
  SECTION("an entry compiled for another key (same length and other length)") {
    std::string other = kKey;
    other[other.size() - 3] = other[other.size() - 3] == '2' ? '3' : '2';
    write_file(path, so + cache_entry_suffix(so, other));
    CHECK(check_file(path, kKey, why) == EntryState::Damaged);
    CHECK(why == "compiled for another key");
    write_file(path, so + cache_entry_suffix(so, kKey + "\n"));
    CHECK(check_file(path, kKey, why) == EntryState::Damaged);
    CHECK(why == "compiled for another key");
  }
  SECTION("a flipped bit anywhere in the object or the key") {
    std::string entry = so + cache_entry_suffix(so, kKey);
    for (size_t at : {size_t(5), so.size() / 2, so.size() - 1}) {
      std::string bad = entry;
      bad[at] ^= 0x10;
      write_file(path, bad);
      CHECK(check_file(path, kKey, why) == EntryState::Damaged);
      CHECK(why == "checksum mismatch");
    }
    std::string bad = entry;
    bad[so.size() + 2] ^= 0x01;  // inside the key
    write_file(path, bad);
    CHECK(check_file(path, kKey, why) == EntryState::Damaged);
  }
  SECTION("a trailer of another kernel ABI") {
    std::string entry = so + cache_entry_suffix(so, kKey);
    entry[entry.size() - kEntryTrailerSize + 8] ^= 0x7f;
    write_file(path, entry);
    CHECK(check_file(path, kKey, why) == EntryState::Damaged);
    CHECK(why.rfind("kernel ABI ", 0) == 0);
  }
  SECTION("sizes in the trailer that do not add up") {
    std::string entry = so + cache_entry_suffix(so, kKey);
    entry[entry.size() - kEntryTrailerSize + 16] ^= 0x01;  // the object's size
    write_file(path, entry);
    CHECK(check_file(path, kKey, why) == EntryState::Damaged);
    CHECK(why.find("trailer records") != std::string::npos);
    entry = so + cache_entry_suffix(so, kKey);
    entry[entry.size() - kEntryTrailerSize + 23] = char(0xff);  // a huge size: no overflow
    write_file(path, entry);
    CHECK(check_file(path, kKey, why) == EntryState::Damaged);
  }
  SECTION("a consistent entry whose body is not a shared object") {
    std::string text = "#!/bin/sh\necho not an object\n";
    write_file(path, text + cache_entry_suffix(text, kKey));
    CHECK(check_file(path, kKey, why) == EntryState::Damaged);
    CHECK(why == "not a shared object");
  }
}

TEST_CASE("kernel cache: entries others could write, links and non-files are unsafe", "[jit][kernel_cache]") {
  TempDir d;
  std::string so = fake_object(), entry = so + cache_entry_suffix(so, kKey), why;
  int dirfd = open(d.path.c_str(), O_RDONLY | O_DIRECTORY);
  REQUIRE(dirfd >= 0);
  int fd = -1;
  CHECK(open_cache_entry(dirfd, "absent.so", kKey, &fd, why) == EntryState::Missing);
  CHECK(fd == -1);

  write_file(d.path + "/good.so", entry);
  CHECK(open_cache_entry(dirfd, "good.so", kKey, &fd, why) == EntryState::Valid);
  REQUIRE(fd >= 0);
  close(fd);

  for (mode_t m : {mode_t(0620), mode_t(0602), mode_t(0666)}) {
    write_file(d.path + "/w.so", entry, m);
    CHECK(open_cache_entry(dirfd, "w.so", kKey, &fd, why) == EntryState::Unsafe);
    CHECK(why.find("writable by group or others") != std::string::npos);
    CHECK(fd == -1);
  }

  // A link to a valid entry is still not followed.
  REQUIRE(symlink((d.path + "/good.so").c_str(), (d.path + "/link.so").c_str()) == 0);
  CHECK(open_cache_entry(dirfd, "link.so", kKey, &fd, why) == EntryState::Unsafe);
  CHECK(why == "a symbolic link");

  REQUIRE(mkdir((d.path + "/dir.so").c_str(), 0700) == 0);
  CHECK(open_cache_entry(dirfd, "dir.so", kKey, &fd, why) == EntryState::Unsafe);
  CHECK(why == "not a regular file");
  REQUIRE(mkfifo((d.path + "/fifo.so").c_str(), 0600) == 0);  // must not block the open
  CHECK(open_cache_entry(dirfd, "fifo.so", kKey, &fd, why) == EntryState::Unsafe);

  if (geteuid() == 0) {
    write_file(d.path + "/foreign.so", entry);
    REQUIRE(chown((d.path + "/foreign.so").c_str(), 65534, 65534) == 0);
    CHECK(open_cache_entry(dirfd, "foreign.so", kKey, &fd, why) == EntryState::Unsafe);
    CHECK(why == "owned by uid 65534, but Kiln runs as uid 0");
  } else {
    WARN("not root: the foreign-owner case needs chown");
  }
  close(dirfd);
}

TEST_CASE("kernel cache: the directory is created 0700 and must be the user's alone", "[jit][kernel_cache]") {
  TempDir d;
  std::string why;
  bool unsafe = true;
  std::string dir = d.path + "/a/b/kernels";
  int fd = open_cache_dir(dir, why, &unsafe);
  REQUIRE(fd >= 0);
  close(fd);
  CHECK(!unsafe);
  struct stat st;
  for (const std::string &p : {d.path + "/a", d.path + "/a/b", dir}) {
    REQUIRE(stat(p.c_str(), &st) == 0);
    INFO(p);
    CHECK((st.st_mode & 07777) == 0700);
  }
  CHECK(kernel_cache_problem(dir).empty());

  chmod(dir.c_str(), 0755);  // an existing directory others can read is fine
  fd = open_cache_dir(dir, why, &unsafe);
  CHECK(fd >= 0);
  if (fd >= 0) close(fd);

  for (mode_t m : {mode_t(0770), mode_t(0707), mode_t(01777)}) {
    chmod(dir.c_str(), m);
    CHECK(open_cache_dir(dir, why, &unsafe) == -1);
    CHECK(unsafe);
    CHECK(why.find("writable by group or others") != std::string::npos);
    CHECK(kernel_cache_problem(dir).rfind("not safe: ", 0) == 0);
  }
  chmod(dir.c_str(), 0700);

  write_file(d.path + "/file", "x");
  CHECK(open_cache_dir(d.path + "/file/kernels", why, &unsafe) == -1);
  CHECK(!unsafe);
  CHECK(why == "cannot be created");

  if (geteuid() == 0) {
    REQUIRE(chown(dir.c_str(), 65534, 65534) == 0);
    CHECK(open_cache_dir(dir, why, &unsafe) == -1);
    CHECK(unsafe);
    CHECK(why.find("owned by uid 65534") == 0);
  }
}

namespace {

// x * c on a 2x3 tensor: kernels that differ only in a constant.
Value scale_kernel(double c) {
  auto g = std::make_unique<Graph>();
  ArgSpec spec{Shape::of({2, 3}), false};
  int32_t x = g->param(0, spec);
  g->outputs.push_back(GraphOutput{g->binary("test", Op::Mul, x, g->constant(c)), false});
  return make_kernel("scale", std::move(g), &spec, false);
}

double first_element(Value k) {
  Tensor *t = alloc_tensor(Shape::of({2, 3}));
  for (int64_t i = 0; i < t->size; i++) t->data[i] = 1.0;
  Value *argv = static_cast<Value *>(gc_alloc(sizeof(Value)));
  argv[0] = from_ptr(t);
  Value r = g_type_hooks[kernel_type()].apply(k, 1, argv);
  return tensor_of(r)->data[0];
}

}  // namespace

TEST_CASE("kernel cache: entries loaded one after another by descriptor stay distinct",
          "[jit][kernel_cache]") {
  // Every entry is loaded as /proc/self/fd/N and the descriptor closed, so the
  // next entry usually gets the same N; the loader must not hand back the
  // previous kernel under that name.
  TempDir d;
  setenv("KILN_CACHE_DIR", d.path.c_str(), 1);
  reset_cache_warning_for_tests();
  for (int round = 0; round < 2; round++) {
    for (double c : {2.0, 3.0, 5.0}) {
      INFO("round " << round << ", constant " << c);
      Value k = scale_kernel(c);
      const KernelBuildInfo &b = last_kernel_build();
      CHECK(b.compiled);
      CHECK(!b.in_memory);
      CHECK(b.cache_hit == (round == 1));
      CHECK(first_element(k) == c);
    }
  }
  unsetenv("KILN_CACHE_DIR");
}

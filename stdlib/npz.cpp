// npz.cpp — (load-npz PATH) and (save-npz PATH ALIST), NumPy's .npz archives
// (docs/data-files.md): a zip file of .npy members, stored (numpy.savez) or
// deflated (numpy.savez_compressed).
//
// Invariant: no number read from the archive is trusted before it is checked
// against the file's size: the central directory's place and entry count, each
// entry's name and sizes, each member's local header and data, and a deflated
// member's claimed size against the most deflate can expand its bytes to
// (1032:1), all before anything is allocated. Every member's CRC-32 is
// checked, and a deflate stream must end exactly where the member does, so a
// damaged, truncated or foreign file is an error naming the file, the member
// and what is wrong, never a crash, a hang or wrong numbers. Reading is by
// pread, so a file cut while it is read is an error too.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "runtime/eval.h"
#include "runtime/list_builder.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"
#include "runtime/utf8.h"
#include "stdlib/builtins.h"
#include "stdlib/file_write.h"
#include "stdlib/npy_array.h"
#include "stdlib/npy_header.h"
#include "stdlib/port_args.h"
#include "stdlib/tensor_args.h"

namespace kiln {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;
constexpr uint64_t kEndLen = 22, kCentralLen = 46, kLocalLen = 30, kLocatorLen = 20, kZip64EndLen = 56;
constexpr uint64_t kMaxComment = 65535;
constexpr uint64_t kMaxDeflateRatio = 1032;  // deflate's largest expansion
constexpr size_t kNpzChunk = 1 << 20;

uint16_t u16(const unsigned char *p) { return uint16_t(p[0] | p[1] << 8); }
uint32_t u32(const unsigned char *p) { return uint32_t(u16(p)) | uint32_t(u16(p + 2)) << 16; }
uint64_t u64(const unsigned char *p) { return uint64_t(u32(p)) | uint64_t(u32(p + 4)) << 32; }

struct Archive {
  std::string path;
  int fd = -1;
  uint64_t size = 0;
  ~Archive() {
    if (fd >= 0) close(fd);
  }
  [[noreturn]] void bad(std::string_view what) const { throw_errorf("load-npz: {}: {}", path, what); }
  // n bytes at `at`, which the caller has checked lie inside the file.
  void read(void *buf, uint64_t at, uint64_t n) const {
    auto *p = static_cast<unsigned char *>(buf);
    while (n > 0) {
      ssize_t got = pread(fd, p, size_t(std::min<uint64_t>(n, kNpzChunk)), off_t(at));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) file_error(fmt::format("load-npz: cannot read {}: {}", path, std::strerror(errno)));
      if (got == 0) bad("the file was cut short while it was being read");
      p += got;
      at += uint64_t(got);
      n -= uint64_t(got);
    }
  }
};

struct Entry {
  std::string name;
  uint16_t flags = 0, method = 0;
  uint32_t crc = 0;
  uint64_t packed = 0, unpacked = 0, local_at = 0;
};

// Where the central directory is and how many entries it has, from the end
// record (and the zip64 end record when the end record defers to it).
void find_directory(const Archive &a, uint64_t &cd_at, uint64_t &cd_len, uint64_t &count) {
  if (a.size < kEndLen) a.bad("not a zip archive (.npz files are zip archives): too short");
  uint64_t tail_len = std::min(a.size, kEndLen + kMaxComment);
  std::vector<unsigned char> tail(tail_len);
  uint64_t tail_at = a.size - tail_len;
  a.read(tail.data(), tail_at, tail_len);
  // The last end record whose comment reaches exactly to the end of the file.
  int64_t end = -1;
  for (int64_t i = int64_t(tail_len - kEndLen); i >= 0; i--) {
    const unsigned char *p = tail.data() + i;
    if (u32(p) == kEndSig && uint64_t(i) + kEndLen + u16(p + 20) == tail_len) {
      end = i;
      break;
    }
  }
  if (end < 0) a.bad("not a zip archive (.npz files are zip archives): no end of central directory record");
  const unsigned char *e = tail.data() + end;
  uint64_t end_at = tail_at + uint64_t(end);
  if (u16(e + 4) != 0 || u16(e + 6) != 0) a.bad("a zip archive split over several disks is not supported");
  if (u16(e + 8) != u16(e + 10))
    a.bad(fmt::format("the end record's entry counts differ ({} on this disk, {} in all)", u16(e + 8),
                      u16(e + 10)));
  count = u16(e + 10);
  cd_len = u32(e + 12);
  cd_at = u32(e + 16);
  uint64_t limit = end_at;  // the directory ends before this
  if (count == 0xffff || cd_len == 0xffffffff || cd_at == 0xffffffff) {
    if (end_at < kLocatorLen) a.bad("the zip64 end record's locator is missing");
    unsigned char loc[kLocatorLen];
    a.read(loc, end_at - kLocatorLen, kLocatorLen);
    if (u32(loc) != kZip64LocatorSig) a.bad("the zip64 end record's locator is missing");
    uint64_t z_at = u64(loc + 8);
    if (z_at > end_at - kLocatorLen || end_at - kLocatorLen - z_at < kZip64EndLen)
      a.bad(fmt::format("the zip64 end record's offset {} is outside the file", z_at));
    unsigned char z[kZip64EndLen];
    a.read(z, z_at, kZip64EndLen);
    if (u32(z) != kZip64EndSig) a.bad(fmt::format("no zip64 end record at byte {}", z_at));
    count = u64(z + 32);
    cd_len = u64(z + 40);
    cd_at = u64(z + 48);
    limit = z_at;
  }
  if (cd_at > limit || limit - cd_at < cd_len)
    a.bad(fmt::format("the central directory (bytes {} to {}) does not fit before byte {}", cd_at,
                      cd_at + cd_len, limit));
  if (count > cd_len / kCentralLen)
    a.bad(fmt::format("the central directory claims {} entries, but its {} bytes hold at most {}", count,
                      cd_len, cd_len / kCentralLen));
}

std::vector<Entry> read_directory(const Archive &a) {
  uint64_t cd_at, cd_len, count;
  find_directory(a, cd_at, cd_len, count);
  std::vector<unsigned char> cd(cd_len);
  a.read(cd.data(), cd_at, cd_len);
  std::vector<Entry> entries;
  uint64_t pos = 0;
  for (uint64_t k = 0; k < count; k++) {
    std::string where = fmt::format("central directory entry {}", k + 1);
    if (cd_len - pos < kCentralLen || u32(cd.data() + pos) != kCentralSig)
      a.bad(fmt::format("{} (byte {}) is damaged", where, cd_at + pos));
    const unsigned char *p = cd.data() + pos;
    Entry e;
    e.flags = u16(p + 8);
    e.method = u16(p + 10);
    e.crc = u32(p + 16);
    e.packed = u32(p + 20);
    e.unpacked = u32(p + 24);
    uint64_t name_len = u16(p + 28), extra_len = u16(p + 30), comment_len = u16(p + 32);
    e.local_at = u32(p + 42);
    if (cd_len - pos - kCentralLen < name_len + extra_len + comment_len)
      a.bad(fmt::format("{} (byte {}) runs past the central directory", where, cd_at + pos));
    e.name.assign(reinterpret_cast<const char *>(p + kCentralLen), name_len);
    // Sizes that do not fit in 32 bits are in the zip64 extra field (id 1), in this order.
    const unsigned char *x = p + kCentralLen + name_len, *x_end = x + extra_len;
    while (x_end - x >= 4) {
      uint16_t id = u16(x), len = u16(x + 2);
      if (x_end - x - 4 < len) break;
      if (id == 1) {
        const unsigned char *f = x + 4, *f_end = x + 4 + len;
        for (uint64_t *field : {&e.unpacked, &e.packed, &e.local_at}) {
          if (*field != 0xffffffff) continue;
          if (f_end - f < 8) a.bad(fmt::format("{} ('{}'): its zip64 sizes are missing", where, e.name));
          *field = u64(f);
          f += 8;
        }
      }
      x += 4 + len;
    }
    entries.push_back(std::move(e));
    pos += kCentralLen + name_len + extra_len + comment_len;
  }
  return entries;
}

// The member's bytes, its CRC-32 checked.
std::vector<unsigned char> member_bytes(const Archive &a, const Entry &e) {
  std::string where = fmt::format("member '{}'", e.name);
  if (e.flags & 1) a.bad(where + " is encrypted");
  if (e.method != 0 && e.method != 8)
    a.bad(fmt::format("{} uses compression method {} (Kiln reads stored (0) and deflated (8))", where,
                      e.method));
  if (e.local_at > a.size || a.size - e.local_at < kLocalLen)
    a.bad(fmt::format("{}: its local header at byte {} is outside the file", where, e.local_at));
  unsigned char h[kLocalLen];
  a.read(h, e.local_at, kLocalLen);
  if (u32(h) != kLocalSig) a.bad(fmt::format("{}: no local header at byte {}", where, e.local_at));
  uint64_t data_at = e.local_at + kLocalLen + u16(h + 26) + u16(h + 28);
  if (data_at > a.size || a.size - data_at < e.packed)
    a.bad(fmt::format("{}: its {} bytes at byte {} run past the end of the file ({} bytes)", where, e.packed,
                      data_at, a.size));
  if (e.method == 0 && e.packed != e.unpacked)
    a.bad(fmt::format("{} is stored, but its sizes differ ({} and {})", where, e.packed, e.unpacked));
  if (e.method == 8 && e.unpacked > e.packed * kMaxDeflateRatio + 1024)
    a.bad(fmt::format("{} claims {} bytes from {} deflated bytes, more than deflate can give", where,
                      e.unpacked, e.packed));
  std::vector<unsigned char> out;
  try {
    out.resize(e.unpacked);
  } catch (const std::bad_alloc &) {
    a.bad(fmt::format("{}: out of memory for its {} bytes", where, e.unpacked));
  }
  if (e.method == 0) {
    a.read(out.data(), data_at, e.packed);
  } else {
    z_stream z;
    std::memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) a.bad("zlib could not start inflating");
    struct Ender {
      z_stream *z;
      ~Ender() { inflateEnd(z); }
    } ender{&z};
    std::vector<unsigned char> in(std::min<uint64_t>(std::max<uint64_t>(e.packed, 1), kNpzChunk));
    uint64_t fed = 0;
    int rc = Z_OK;
    z.next_out = out.data();
    uint64_t out_left = e.unpacked;
    while (rc != Z_STREAM_END) {
      check_interrupt();
      if (z.avail_in == 0) {
        if (fed == e.packed) a.bad(where + ": the deflated data ends early (the member is truncated)");
        uInt n = uInt(std::min<uint64_t>(in.size(), e.packed - fed));
        a.read(in.data(), data_at + fed, n);
        fed += n;
        z.next_in = in.data();
        z.avail_in = n;
      }
      // avail_out 0 while the stream goes on: inflate reports Z_BUF_ERROR below.
      uInt room = uInt(std::min<uint64_t>(out_left, 1u << 30));
      z.avail_out = room;
      rc = inflate(&z, Z_NO_FLUSH);
      out_left -= room - z.avail_out;
      if (rc == Z_BUF_ERROR && out_left == 0)
        a.bad(fmt::format("{} inflates to more than the {} bytes the directory says", where, e.unpacked));
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
        a.bad(fmt::format("{}: damaged deflate data: {}", where, z.msg ? z.msg : "unknown error"));
    }
    if (out_left != 0)
      a.bad(fmt::format("{} inflates to {} bytes, the directory says {}", where, e.unpacked - out_left,
                        e.unpacked));
    if (z.avail_in != 0 || fed != e.packed)
      a.bad(fmt::format("{}: bytes after the end of its deflated data", where));
  }
  uLong crc = crc32_z(crc32_z(0L, Z_NULL, 0), out.data(), out.size());
  if (uint32_t(crc) != e.crc)
    a.bad(fmt::format("{}: checksum mismatch (the archive says {:08x}, the bytes give {:08x}): damaged",
                      where, e.crc, uint32_t(crc)));
  return out;
}

Value b_load_npz(int, Value *argv) {
  Archive a;
  a.path = arg_path("load-npz", 1, argv[0]);
  a.fd = open(a.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (a.fd < 0) file_error(fmt::format("load-npz: cannot open {}: {}", a.path, std::strerror(errno)));
  struct stat st;
  if (fstat(a.fd, &st) != 0)
    file_error(fmt::format("load-npz: cannot read {}: {}", a.path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode))
    file_error(fmt::format("load-npz: cannot read {}: {}", a.path, std::strerror(EISDIR)));
  if (!S_ISREG(st.st_mode)) a.bad("not a regular file (load-npz needs the file's size)");
  a.size = uint64_t(st.st_size);
  std::vector<Entry> entries = read_directory(a);
  ListBuilder out;
  for (const Entry &e : entries) {
    if (utf8_invalid_offset(e.name) < e.name.size() || e.name.find('\0') != std::string::npos)
      a.bad(fmt::format("member {} has a name that is not UTF-8 text", write_string(make_string(e.name))));
    if (e.name.size() < 4 || e.name.compare(e.name.size() - 4, 4, ".npy") != 0)
      a.bad(fmt::format("member '{}' is not a .npy array (its name does not end in .npy)", e.name));
    std::vector<unsigned char> bytes = member_bytes(a, e);
    Value t = npy_tensor_from_bytes("load-npz", fmt::format("{}: member '{}'", a.path, e.name), bytes.data(),
                                    bytes.size());
    Value key = intern(e.name.substr(0, e.name.size() - 4));
    out.push(cons(key, t));
  }
  return out.finish(NIL);
}

// ---- writing: stored members, byte for byte as numpy.savez writes them ---------

constexpr uint32_t kLocalExtraLen = 20;

void put16(std::string &s, uint32_t v) {
  s += char(v & 0xff);
  s += char(v >> 8 & 0xff);
}
void put32(std::string &s, uint32_t v) {
  put16(s, v & 0xffff);
  put16(s, v >> 16);
}

struct Member {
  std::string name;    // NAME.npy
  std::string header;  // the .npy header
  const Tensor *t;
  uint32_t crc;
  uint64_t size, at;  // the .npy bytes, and where the local header starts
};

// The zip headers both start with: version needed (2.0), flags, method
// (stored), time and date (1980-01-01 00:00, as numpy.savez writes), CRC-32,
// the two sizes, the name's length.
void put_common(std::string &s, const Member &m) {
  put16(s, 20);
  put16(s, 0);
  put16(s, 0);
  put16(s, 0);
  put16(s, 0x21);
  put32(s, m.crc);
  put32(s, uint32_t(m.size));
  put32(s, uint32_t(m.size));
  put16(s, uint32_t(m.name.size()));
}

Value b_save_npz(int, Value *argv) {
  std::string path = arg_path("save-npz", 1, argv[0]);
  const char *want = "an association list of (NAME . TENSOR), NAME a symbol or a non-empty string";
  std::vector<Member> members;
  Value p = argv[1];
  for (; is_pair(p); p = cdr(p)) {
    Value item = car(p);
    if (!is_pair(item) || !is_tensor(cdr(item))) type_error("save-npz", 2, want, argv[1]);
    Value k = car(item);
    std::string name;
    if (is_symbol(k)) name = std::string(symbol_name(k));
    else if (is_string(k)) name = std::string(string_view_of(k));
    else type_error("save-npz", 2, want, argv[1]);
    if (name.empty() || name.find('\0') != std::string::npos || name.size() > 60000)
      throw_errorf("save-npz: a name must be non-empty, without NUL and under 60000 bytes, got {:?}", name);
    for (const Member &m : members)
      if (m.name == name + ".npy") throw_errorf("save-npz: the name {} appears twice", name);
    const Tensor *t = tensor_of(cdr(item));
    Member m{name + ".npy", npy_header_f8(t->shape), t, 0, 0, 0};
    m.size = m.header.size() + uint64_t(t->size) * sizeof(double);
    members.push_back(std::move(m));
    if (members.size() > 65535)
      throw_errorf("save-npz: more than 65535 arrays (zip64 archives are not written)");
  }
  if (p != NIL) type_error("save-npz", 2, want, argv[1]);
  uint64_t at = 0;
  for (Member &m : members) {
    check_interrupt();
    uLong c = crc32_z(0L, Z_NULL, 0);
    c = crc32_z(c, reinterpret_cast<const Bytef *>(m.header.data()), m.header.size());
    c = crc32_z(c, reinterpret_cast<const Bytef *>(m.t->data), size_t(m.t->size) * sizeof(double));
    m.crc = uint32_t(c);
    m.at = at;
    at += kLocalLen + m.name.size() + kLocalExtraLen + m.size;
  }
  std::string directory;
  for (const Member &m : members) {
    put32(directory, kCentralSig);
    put16(directory, 0x0314);  // made by: Unix attributes, zip 2.0
    put_common(directory, m);
    put16(directory, 0);            // extra field
    put16(directory, 0);            // comment
    put16(directory, 0);            // disk
    put16(directory, 0);            // internal attributes
    put32(directory, 0600u << 16);  // external attributes: a Unix file, rw-------
    put32(directory, uint32_t(m.at));
    directory += m.name;
  }
  if (at + directory.size() >= 0xffffffffu)
    throw_errorf("save-npz: the archive would reach 4 GiB (zip64 archives are not written)");
  std::string end;
  put32(end, kEndSig);
  put16(end, 0);
  put16(end, 0);
  put16(end, uint32_t(members.size()));
  put16(end, uint32_t(members.size()));
  put32(end, uint32_t(directory.size()));
  put32(end, uint32_t(at));
  put16(end, 0);
  write_file_atomically("save-npz", path, [&](FILE *f) {
    for (const Member &m : members) {
      std::string local;
      put32(local, kLocalSig);
      put_common(local, m);
      put16(local, kLocalExtraLen);
      local += m.name;
      // The zip64 extra field Python's zipfile writes for numpy (force_zip64): both sizes again.
      put16(local, 1);
      put16(local, 16);
      put32(local, uint32_t(m.size));
      put32(local, uint32_t(m.size >> 32));
      put32(local, uint32_t(m.size));
      put32(local, uint32_t(m.size >> 32));
      local += m.header;
      if (std::fwrite(local.data(), 1, local.size(), f) != local.size()) return false;
      const char *d = reinterpret_cast<const char *>(m.t->data);
      size_t n = size_t(m.t->size) * sizeof(double);
      for (size_t done = 0; done < n; done += kNpzChunk) {
        check_interrupt();
        size_t k = std::min(kNpzChunk, n - done);
        if (std::fwrite(d + done, 1, k, f) != k) return false;
      }
    }
    return std::fwrite(directory.data(), 1, directory.size(), f) == directory.size() &&
           std::fwrite(end.data(), 1, end.size(), f) == end.size();
  });
  return UNSPEC;
}

BuiltinRegistrar npz_registrar([] {
  defbuiltin("load-npz", 1, 1, b_load_npz,
             "(load-npz PATH): the arrays of a NumPy .npz archive (numpy.savez or numpy.savez_compressed) as "
             "an association list ((NAME . TENSOR) ...) in the archive's order, NAME a symbol.");
  defbuiltin("save-npz", 2, 2, b_save_npz,
             "(save-npz PATH ALIST): the tensors of ALIST ((NAME . TENSOR) ..., NAME a symbol or string) to "
             "PATH as a NumPy .npz archive (stored float64 .npy members), what numpy.load reads.");
});

}  // namespace
}  // namespace kiln

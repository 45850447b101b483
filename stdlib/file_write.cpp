// file_write.cpp — write_file_atomically (file_write.h).
#include "stdlib/file_write.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "runtime/error.h"
#include "stdlib/port_args.h"

namespace kiln {

void write_file_atomically(const char *who, const std::string &path,
                           const std::function<bool(FILE *)> &write) {
  // The name is this call's own, so two saves at once, from two processes or
  // two threads, never write into one file.
  static std::atomic<uint64_t> saves{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
    tmp = fmt::format("{}.tmp.{}.{}", path, getpid(), saves++);
    fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  FILE *f = fd < 0 ? nullptr : fdopen(fd, "wb");
  if (!f) {
    int err = errno;
    if (fd >= 0) {
      close(fd);
      unlink(tmp.c_str());
    }
    file_error(fmt::format("{}: cannot write {}: {}", who, path, std::strerror(err)));
  }
  // The first failure's errno is the reason given.
  bool ok;
  int err = 0;
  try {
    ok = write(f);
  } catch (...) {
    std::fclose(f);
    std::remove(tmp.c_str());
    throw;
  }
  if (!ok) err = errno;
  auto step = [&](bool done) {
    if (!done && ok) {
      ok = false;
      err = errno;
    }
  };
  step(std::fflush(f) == 0);
  step(fsync(fileno(f)) == 0);
  step(std::fclose(f) == 0);
  if (ok) step(std::rename(tmp.c_str(), path.c_str()) == 0);
  if (!ok) {
    std::remove(tmp.c_str());
    file_error(fmt::format("{}: cannot write {}: {}", who, path, std::strerror(err ? err : EIO)));
  }
}

}  // namespace kiln

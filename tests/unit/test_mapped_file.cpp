// Unit tests for stdlib/mapped_file.h: mapping a file, and a copy out of the
// mapping that meets a file cut underneath it (SIGBUS) returning false.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "stdlib/mapped_file.h"

using namespace kiln;

namespace {
struct TempFile {
  std::string path;
  int fd = -1;
  explicit TempFile(size_t n) {
    char name[] = "/tmp/kiln-mapped-XXXXXX";
    fd = mkstemp(name);
    path = name;
    std::vector<unsigned char> bytes(n);
    for (size_t i = 0; i < n; i++) bytes[i] = (unsigned char)(i * 7 + 3);
    REQUIRE(write(fd, bytes.data(), n) == ssize_t(n));
  }
  ~TempFile() {
    close(fd);
    unlink(path.c_str());
  }
};
}  // namespace

TEST_CASE("map_file: the bytes and their CRC-32", "[mapped_file]") {
  TempFile f(100000);
  MappedFile m;
  REQUIRE(map_file(f.fd, m) == "");
  REQUIRE(m.size == 100000);
  std::vector<unsigned char> out(m.size);
  uint32_t crc = uint32_t(crc32_z(0, Z_NULL, 0));
  REQUIRE(copy_from_mapping(out.data(), m.bytes, m.size, crc));
  CHECK(out[99999] == (unsigned char)(99999 * 7 + 3));
  CHECK(crc == uint32_t(crc32_z(crc32_z(0, Z_NULL, 0), out.data(), out.size())));
}

TEST_CASE("map_file: empty files, directories and devices", "[mapped_file]") {
  TempFile f(0);
  MappedFile m;
  CHECK(map_file(f.fd, m) == "");
  CHECK(m.size == 0);
  int dir = open("/tmp", O_RDONLY);
  MappedFile d;
  CHECK(map_file(dir, d) == "Is a directory");
  close(dir);
  int dev = open("/dev/zero", O_RDONLY);
  MappedFile z;
  CHECK(map_file(dev, z) == "not a regular file");
  close(dev);
}

TEST_CASE("copy_from_mapping: a file cut after it was mapped is a false return, not a crash",
          "[mapped_file]") {
  TempFile f(1 << 20);
  MappedFile m;
  REQUIRE(map_file(f.fd, m) == "");
  REQUIRE(ftruncate(f.fd, 4096) == 0);
  std::vector<unsigned char> out(m.size);
  uint32_t crc = 0;
  CHECK(copy_from_mapping(out.data(), m.bytes, 4096, crc));
  CHECK_FALSE(copy_from_mapping(out.data(), m.bytes, m.size, crc));
  // and again: the handler stays in place and this thread is not left marked as copying
  CHECK_FALSE(copy_from_mapping(out.data(), m.bytes + 8192, 4096, crc));
  CHECK(copy_from_mapping(out.data(), m.bytes, 100, crc));
}

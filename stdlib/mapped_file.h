// mapped_file.h — a regular file mapped read-only, and copying out of it
// without dying of SIGBUS (load-model's binary-format reader, docs/model-format.md).
//
// Invariant: a mapping's bytes are only touched through copy_from_mapping,
// which turns the SIGBUS a read past the end of a file that shrank after it was
// mapped (another process truncating it) into a false return, so a file cut
// while it is being read is an error and never kills the process. The mapping
// is released when the MappedFile goes, including when an error unwinds.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln {

struct MappedFile {
  const unsigned char *bytes = nullptr;
  uint64_t size = 0;
  MappedFile() = default;
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  ~MappedFile();
};

// Maps the regular file open on `fd` whole (fd stays the caller's). "" on
// success, otherwise the reason ("not a regular file", strerror's text).
std::string map_file(int fd, MappedFile &out);

// Copies n bytes at `from` (inside a mapping) to `to` and extends the zlib
// CRC-32 `crc` over them; false when the file's pages vanished underneath (the
// copy is then partial and `crc` meaningless).
bool copy_from_mapping(void *to, const unsigned char *from, size_t n, uint32_t &crc);

}  // namespace kiln

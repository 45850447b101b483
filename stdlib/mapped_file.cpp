// mapped_file.cpp — map_file and copy_from_mapping (mapped_file.h).
#include "stdlib/mapped_file.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace kiln {
namespace {

// Where the copy running on this thread resumes after a SIGBUS; null when
// this thread is not copying, so a SIGBUS elsewhere keeps its default effect.
thread_local sigjmp_buf *t_resume = nullptr;
struct sigaction g_previous;

void on_sigbus(int sig, siginfo_t *info, void *ctx) {
  if (t_resume) siglongjmp(*t_resume, 1);
  // Not ours: behave as if this handler were not there.
  if (g_previous.sa_flags & SA_SIGINFO) {
    g_previous.sa_sigaction(sig, info, ctx);
  } else if (g_previous.sa_handler != SIG_IGN && g_previous.sa_handler != SIG_DFL) {
    g_previous.sa_handler(sig);
  } else {
    signal(SIGBUS, SIG_DFL);  // the faulting access repeats and ends the process as it would have
  }
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &g_previous);
  });
}

}  // namespace

MappedFile::~MappedFile() {
  if (bytes) munmap(const_cast<unsigned char *>(bytes), size);
}

std::string map_file(int fd, MappedFile &out) {
  struct stat st;
  if (fstat(fd, &st) != 0) return std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return std::strerror(EISDIR);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  out.size = uint64_t(st.st_size);
  if (out.size == 0) return "";  // nothing to map; the reader reports the missing header
  // MAP_POPULATE reads the file ahead in one go rather than a page fault at a time.
  void *p = mmap(nullptr, out.size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) return std::strerror(errno);
  madvise(p, out.size, MADV_SEQUENTIAL);
  out.bytes = static_cast<const unsigned char *>(p);
  return "";
}

bool copy_from_mapping(void *to, const unsigned char *from, size_t n, uint32_t &crc) {
  install_handler();
  sigjmp_buf resume;
  // Nothing with a destructor lives between here and the copy below, so
  // jumping back over it skips no cleanup.
  if (sigsetjmp(resume, 1) != 0) {
    t_resume = nullptr;
    return false;
  }
  t_resume = &resume;
  uLong c = crc;
  auto *dst = static_cast<unsigned char *>(to);
  // In pieces that stay in the cache between the checksum and the copy.
  constexpr size_t kPiece = 1 << 18;
  for (size_t done = 0; done < n; done += kPiece) {
    size_t k = std::min(kPiece, n - done);
    c = crc32_z(c, from + done, k);
    std::memcpy(dst + done, from + done, k);
  }
  t_resume = nullptr;
  crc = uint32_t(c);
  return true;
}

}  // namespace kiln

#include "interrupt.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "runtime/eval.h"

namespace kiln {

static int g_pipe[2] = {-1, -1};

static void on_sigint(int) {
  int saved = errno;  // the interrupted code may be inspecting errno
  g_interrupt = 1;
  if (g_pipe[1] >= 0) {
    char byte = 1;
    ssize_t ignored = write(g_pipe[1], &byte, 1);  // full pipe: a Ctrl-C is already pending
    (void)ignored;
  }
  errno = saved;
}

void install_repl_interrupt_handler() {
  if (g_pipe[0] < 0 && pipe(g_pipe) == 0) {
    for (int fd : g_pipe) {
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
      fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
  }
  struct sigaction sa = {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
}

int interrupt_pipe_fd() { return g_pipe[0]; }

void clear_pending_interrupts() {
  if (g_pipe[0] >= 0) {
    char buf[64];
    while (read(g_pipe[0], buf, sizeof buf) > 0) {
    }
  }
  g_interrupt = 0;
}

}  // namespace kiln

#include "repl/interrupt.h"

#include <fcntl.h>
#include <poll.h>
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

static void clear_pending_interrupts_keeping_flag() {
  if (g_pipe[0] >= 0) {
    char buf[64];
    while (read(g_pipe[0], buf, sizeof buf) > 0) {
    }
  }
}

// SA_RESTART keeps a blocking read() going through Ctrl-C, so a program's
// (read-line) waiting for a line would notice the interrupt only after Enter.
// Waiting in poll() on stdin and the self-pipe instead lets the interrupt end
// the wait at once.
int read_stdin_interruptibly() {
  for (;;) {
    check_interrupt();
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {g_pipe[0], POLLIN, 0}};
    if (poll(fds, g_pipe[0] >= 0 ? 2 : 1, -1) < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (g_pipe[0] >= 0 && (fds[1].revents & POLLIN)) {
      // A byte left by a Ctrl-C that has already been handled would wake every
      // poll: drain it; the flag says whether one is pending.
      clear_pending_interrupts_keeping_flag();
      continue;
    }
    if (fds[0].revents == 0) continue;
    unsigned char byte;
    ssize_t got = read(STDIN_FILENO, &byte, 1);
    if (got == 1) return byte;
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    return -1;  // end of input (Ctrl-D on an empty line) or a read error
  }
}

void clear_pending_interrupts() {
  clear_pending_interrupts_keeping_flag();
  g_interrupt = 0;
}

}  // namespace kiln

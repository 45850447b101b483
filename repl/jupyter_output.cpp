#include "repl/jupyter_output.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace kiln::jupyter {

static const char *const kStreamNames[2] = {"stdout", "stderr"};

// Bytes at the end of s that begin a UTF-8 character not yet complete.
static size_t unfinished_utf8_tail(const std::string &s) {
  size_t n = s.size();
  for (size_t back = 1; back <= 3 && back <= n; back++) {
    unsigned char c = (unsigned char)s[n - back];
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

bool OutputCapture::start(Sink sink, std::string *error) {
  sink_ = std::move(sink);
  std::fflush(stdout);
  std::fflush(stderr);
  for (int i = 0; i < 2; i++) {
    int p[2];
    if (pipe(p) != 0) {
      *error = std::string("cannot make a pipe for ") + kStreamNames[i] + ": " + std::strerror(errno);
      return false;
    }
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    saved_[i] = fcntl(i + 1, F_DUPFD_CLOEXEC, 3);
    dup2(p[1], i + 1);
    close(p[1]);
    pipes_[i] = p[0];
  }
  // Lines appear in the notebook as they are printed, not 4 KiB at a time.
  setvbuf(stdout, nullptr, _IOLBF, 0);
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
  return true;
}

void OutputCapture::forward(int which, bool final) {
  std::string text = std::move(pending_[which]);
  pending_[which].clear();
  char buf[65536];
  for (;;) {
    ssize_t n = read(pipes_[which], buf, sizeof buf);
    if (n > 0) {
      text.append(buf, size_t(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // EAGAIN: nothing more now
  }
  if (!final) {
    size_t tail = unfinished_utf8_tail(text);
    pending_[which] = text.substr(text.size() - tail);
    text.resize(text.size() - tail);
  }
  if (!text.empty()) sink_(kStreamNames[which], text);
}

void OutputCapture::run() {
  // Ctrl-C is for the evaluating thread; this one must not be woken by it.
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  pthread_sigmask(SIG_BLOCK, &block, nullptr);
  while (!stopping_) {
    pollfd fds[2] = {{pipes_[0], POLLIN, 0}, {pipes_[1], POLLIN, 0}};
    if (poll(fds, 2, 50) <= 0) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    for (int i = 0; i < 2; i++)
      if (fds[i].revents) forward(i, false);
  }
}

void OutputCapture::drain() {
  if (pipes_[0] < 0) return;
  std::fflush(stdout);
  std::fflush(stderr);
  std::lock_guard<std::mutex> lock(mutex_);
  for (int i = 0; i < 2; i++) forward(i, true);
}

void OutputCapture::stop() {
  if (pipes_[0] < 0) return;
  drain();
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  for (int i = 0; i < 2; i++) {
    dup2(saved_[i], i + 1);
    close(saved_[i]);
    close(pipes_[i]);
    saved_[i] = pipes_[i] = -1;
  }
}

}  // namespace kiln::jupyter

// jupyter_output.h — a kernel's standard output and error as Jupyter streams.
//
// Invariant: while capturing, file descriptors 1 and 2 are pipes that one thread
// empties into the sink, so whatever writes to them (the Lisp ports, stdio, the
// collector's warnings) shows in the notebook as it is written and never blocks
// for long. drain() returns only once every byte written before it was passed to
// the sink, so the kernel can publish a result or a reply after the output the
// cell printed. Text is passed in whole UTF-8 characters while more is to come.
// The thread touches no Lisp value (it is not registered with the collector).
#pragma once
#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace kiln::jupyter {

class OutputCapture {
 public:
  // name is "stdout" or "stderr".
  using Sink = std::function<void(const char *name, const std::string &text)>;
  ~OutputCapture() { stop(); }
  bool start(Sink sink, std::string *error);
  void drain();
  // Restores descriptors 1 and 2 and ends the thread (idempotent).
  void stop();
  // The standard error the kernel was started with: its log (Jupyter shows it
  // in the server's terminal), -1 when not capturing.
  int log_fd() const { return saved_[1]; }

 private:
  void run();
  void forward(int which, bool final);

  Sink sink_;
  int pipes_[2] = {-1, -1};  // read ends for stdout, stderr
  int saved_[2] = {-1, -1};  // the original descriptors 1 and 2
  std::string pending_[2];   // an unfinished UTF-8 character at a read's end
  std::mutex mutex_;         // one reader of the pipes at a time
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace kiln::jupyter

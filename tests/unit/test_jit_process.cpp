// test_jit_process.cpp — what a compile does to the process around it
// (docs/jit.md, "Known GCC defects"): the failure reason taken from the captured
// stderr, captures of fd 2 from two threads, and GCC's exit() inside a compile,
// which must end the process as it was already ending or with a clear error.
// The exit cases run in a forked child.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

#include "compiler/jit_context.h"

using namespace kiln;

TEST_CASE("jit: a compile failure's reason is the captured line naming an error", "[jit]") {
  // A background compile captures fd 2, so the program's own stderr lines come first.
  CHECK(first_error_line("note on stderr\nlibgccjit.so: error: error invoking gcc driver\n") ==
        "libgccjit.so: error: error invoking gcc driver");
  CHECK(first_error_line("\ncc1: error: bad value\ncompilation terminated.\n") == "cc1: error: bad value");
  CHECK(first_error_line("a warning only\n") == "a warning only");
  CHECK(first_error_line("compilation terminated.\n") == "compilation terminated.");
  CHECK(first_error_line("") == "");
  CHECK(jit_failure_reason(nullptr, "note on stderr\n") == "note on stderr");
  CHECK(jit_failure_reason(nullptr, "x\nerror: y\n") == "error: y");
  CHECK(jit_failure_reason(nullptr, "") == "libgccjit failed without a message");
}

TEST_CASE("jit: captures of fd 2 from two threads may end in any order", "[jit]") {
  // A background compile and a graph-compile capture at once; when the first to
  // begin ended last, fd 2 was left on the other's deleted file and every later
  // error message of the program vanished.
  struct stat before, after;
  REQUIRE(fstat(2, &before) == 0);
  auto say = [](const char *s) { (void)!write(2, s, std::strlen(s)); };
  auto *first = new StderrCapture;
  say("one\n");
  std::string second_text;
  std::thread other([&] {
    StderrCapture second;
    say("two\n");
    second_text = second.end();
  });
  other.join();  // the second began after the first and ends before it
  say("three\n");
  CHECK(second_text == "two\n");
  CHECK(first->end() == "one\ntwo\nthree\n");
  delete first;
  REQUIRE(fstat(2, &after) == 0);
  CHECK((after.st_dev == before.st_dev && after.st_ino == before.st_ino));

  // Crossed: the first to begin ends first, the redirection stays for the second.
  auto *a = new StderrCapture;
  auto *b = new StderrCapture;
  say("x\n");
  CHECK(a->end() == "x\n");
  say("y\n");
  CHECK(b->end() == "x\ny\n");
  delete a;
  delete b;
  REQUIRE(fstat(2, &after) == 0);
  CHECK((after.st_dev == before.st_dev && after.st_ino == before.st_ino));
}

namespace {
// Runs `child` in a forked process with stderr on a pipe; returns its exit status
// and what it wrote to stderr.
std::pair<int, std::string> in_child(void (*child)()) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::fflush(nullptr);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], 2);
    child();
    std::_Exit(99);  // child() ends the process itself
  }
  close(fds[1]);
  std::string err;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) err.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), err};
}
}  // namespace

TEST_CASE("jit: GCC's exit(1) inside a compile ends the process with the status it was ending with",
          "[jit]") {
  // An exit during a background compile removes the compile directory; GCC, finding
  // its output file gone, calls exit(1), which raced the intended _Exit: a program
  // ending with status 3 (or 0) sometimes ended with 1 and no message.
  auto [status, err] = in_child([] {
    std::thread compile([] {
      jit_mark_background_thread();
      StderrCapture cap;
      run_uninterruptible(
          "racing", &cap,
          [](void *) {
            usleep(100000);  // the exit path below starts meanwhile
            std::fputs("cc1: fatal error: cannot open fake.s for writing\ncompilation terminated.\n", stderr);
            std::exit(1);
          },
          nullptr);
    });
    compile.detach();
    usleep(20000);
    std::fputs("the program's last line\n", stderr);
    jit_abandon_compile(3);
    usleep(300000);  // GCC's exit comes first
    std::_Exit(3);
  });
  CHECK(status == 3);
  CHECK(err == "the program's last line\n");
}

TEST_CASE("jit: GCC's fatal error in a compile is a clear error naming the kernel", "[jit]") {
  auto [status, err] = in_child([] {
    StderrCapture cap;
    run_uninterruptible(
        "doomed", &cap,
        [](void *) {
          std::fputs("cc1: fatal error: cannot open fake.s for writing\ncompilation terminated.\n", stderr);
          std::exit(1);
        },
        nullptr);
  });
  CHECK(status == 70);
  CHECK(err.find("cc1: fatal error: cannot open fake.s for writing\n") != std::string::npos);
  CHECK(err.find("error: the compiler ended the process while compiling kernel doomed") != std::string::npos);
}

TEST_CASE("jit: GCC's abort in a compile is a clear error naming the kernel", "[jit]") {
  // GCC aborts on an internal error and when its directory is removed mid-compile
  // (a temporary-file cleaner): a silent SIGABRT before.
  auto [status, err] = in_child([] {
    StderrCapture cap;
    run_uninterruptible(
        "crashing", &cap,
        [](void *) {
          std::fputs("cc1: internal compiler error: in simulated, at somewhere.cc:1\n", stderr);
          std::abort();
        },
        nullptr);
  });
  CHECK(status == 70);
  CHECK(err.find("cc1: internal compiler error: in simulated") != std::string::npos);
  CHECK(err.find("error: the compiler crashed while compiling kernel crashing") != std::string::npos);
}

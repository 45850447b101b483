// test_runner.cpp — `kiln test` (docs/testing.md); see test_runner.h for the invariant.
//
// Each test NAME.lisp (or NAME.scm) runs as `kiln NAME.lisp [ARGS from NAME.args]`
// with its directory as cwd, stdout and stderr merged into one pipe, stdin from
// NAME.in or /dev/null, the inherited environment plus NAME.env. Up to --jobs
// children run at once; one poll loop collects their output and enforces the
// timeout, and results are reported in sorted order however the children finish.
#include "repl/test_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "repl/test_diff.h"
#include "repl/test_report.h"
#include "runtime/eval.h"

extern char **environ;

namespace kiln {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Output kept per test. A child printing more is killed: a runaway loop must
// not eat memory, and no golden output comes near this.
constexpr size_t kMaxOutputBytes = 8u << 20;
// A timed-out child first gets SIGINT, which Kiln turns into an `interrupted`
// error after flushing stdout, so what it printed reaches the report; SIGKILL
// follows if it has not stopped within this many seconds.
constexpr double kInterruptGraceSec = 2;
// Larger timeouts would overflow the clock's arithmetic.
constexpr double kMaxTimeoutSec = 1e7;

const char kTestHelp[] =
    "usage: kiln test [OPTIONS] PATH...\n"
    "\n"
    "Runs every test NAME.lisp or NAME.scm that has its expected output NAME.out\n"
    "beside it, each in a fresh kiln process, and compares the merged stdout and\n"
    "stderr with NAME.out. A PATH is a directory (searched recursively), a test\n"
    "file, or a test name as printed: names are relative to the directory PATH\n"
    "they were found under (a file PATH: as given), without the extension.\n"
    "\n"
    "  -k TEXT          run only the tests whose name contains TEXT\n"
    "  --list           print the names of the tests and run nothing\n"
    "  -j N, --jobs N   run N tests at once (default 1)\n"
    "  --timeout SEC    fail a test still running after SEC seconds (default 60,\n"
    "                   or $KILN_TEST_TIMEOUT)\n"
    "  --fail-fast      stop after the first failure\n"
    "  -u, --update     rewrite each NAME.out from the actual output\n"
    "  --junit FILE     also write a JUnit XML report to FILE\n"
    "  --tap            report in TAP version 13 on stdout\n"
    "  -h, --help       print this help and exit\n"
    "  --               the arguments after it are PATHs\n"
    "\n"
    "Beside NAME.lisp: NAME.out expected output, NAME.in stdin, NAME.args one\n"
    "argument per line, NAME.env KEY=VALUE lines, NAME.status the expected exit\n"
    "status (default: any). A first line `; kiln-test: skip REASON` skips the test.\n"
    "Exit status: 0 when tests ran and none failed, 1 when one failed or none ran,\n"
    "2 for a usage error.\n";

struct Options {
  bool help = false, update = false, list = false, fail_fast = false, tap = false;
  int jobs = 1;
  double timeout_sec = 60;
  std::optional<std::string> filter;
  std::string junit;
  std::vector<std::string> paths;
};

struct TestCase {
  std::string name;     // relative to its directory PATH (else as given), without extension
  fs::path script;      // absolute path of NAME.lisp or NAME.scm
  fs::path out;         // NAME.out beside it
  std::string problem;  // found by discovery; the test fails with it unrun
};

// ---------------------------------------------------------------- options

[[noreturn]] void usage_error(const std::string &msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "kiln test: %s\nusage: kiln test [OPTIONS] PATH...  (kiln test --help lists them)\n",
               msg.c_str());
  std::fflush(stderr);
  std::exit(2);
}

// A PATH naming no test: the usage is fine, so it is not repeated.
[[noreturn]] void path_error(const std::string &msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "kiln test: %s\n", msg.c_str());
  std::fflush(stderr);
  std::exit(2);
}

double parse_seconds(const std::string &v, const char *what) {
  char *end = nullptr;
  double t = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !(t > 0) || !(t <= kMaxTimeoutSec))
    usage_error(std::string(what) + " needs a number of seconds above 0 and at most 1e7, got '" + v + "'");
  return t;
}

Options parse_options(int argc, char **argv) {
  Options opt;
  // Slow builds (sanitizers, GC stress) raise the default without editing every caller.
  if (const char *env = std::getenv("KILN_TEST_TIMEOUT"); env && *env)
    opt.timeout_sec = parse_seconds(env, "KILN_TEST_TIMEOUT");
  bool only_paths = false;
  for (int i = 1; i < argc; i++) {
    std::string_view a = argv[i];
    // `--flag=VALUE` or `--flag VALUE`; a short flag also takes `-kVALUE`.
    auto has_value = [&](std::string_view flag) {
      if (a == flag) return true;
      if (a.substr(0, flag.size()) != flag) return false;
      return flag.size() == 2 ? a.size() > 2 : a.size() > flag.size() && a[flag.size()] == '=';
    };
    auto value_of = [&](std::string_view flag) -> std::string {
      if (a != flag) return std::string(a.substr(flag.size() + (flag.size() == 2 ? 0 : 1)));
      if (i + 1 >= argc) usage_error(std::string(flag) + " needs a value");
      return argv[++i];
    };
    if (only_paths || a.empty() || a[0] != '-' || a == "-") {
      opt.paths.emplace_back(a);
    } else if (a == "--") {
      only_paths = true;
    } else if (a == "-h" || a == "--help") {
      opt.help = true;
    } else if (a == "--update" || a == "-u") {
      opt.update = true;
    } else if (a == "--list") {
      opt.list = true;
    } else if (a == "--fail-fast") {
      opt.fail_fast = true;
    } else if (a == "--tap") {
      opt.tap = true;
    } else if (has_value("--jobs") || has_value("-j")) {
      std::string v = value_of(a.substr(0, 3) == "--j" ? "--jobs" : "-j");
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < 1 || n > 256)
        usage_error("--jobs needs a number from 1 to 256, got '" + v + "'");
      opt.jobs = int(n);
    } else if (has_value("--timeout")) {
      opt.timeout_sec = parse_seconds(value_of("--timeout"), "--timeout");
    } else if (has_value("-k")) {
      opt.filter = value_of("-k");
    } else if (has_value("--junit")) {
      opt.junit = value_of("--junit");
      if (opt.junit.empty()) usage_error("--junit needs a file name");
    } else {
      usage_error("unknown option: " + std::string(a));
    }
  }
  if (!opt.help && opt.paths.empty()) usage_error("no PATH given");
  return opt;
}

// ---------------------------------------------------------------- discovery

bool is_test_script(const fs::path &p) { return p.extension() == ".lisp" || p.extension() == ".scm"; }

std::string without_extension(const fs::path &p) {
  return fs::path(p).replace_extension().lexically_normal().generic_string();
}

TestCase file_test(const std::string &arg, const fs::path &script) {
  return {without_extension(arg), script, fs::path(script).replace_extension(".out"), ""};
}

// Tests under one PATH argument, sorted by name; a usage error if it names none.
// A file PATH or name is one test (its .out may be missing only with --update,
// which creates it).
std::vector<TestCase> discover(const std::string &arg) {
  std::error_code ec;
  fs::path root = fs::absolute(arg, ec).lexically_normal();
  if (ec || arg.empty()) path_error("no such file or directory: " + arg);
  if (fs::is_directory(root, ec)) {
    std::map<std::string, TestCase> found;  // by name, so sorted
    auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const fs::path &p = it->path();
      if (!is_test_script(p) || !it->is_regular_file(ec)) continue;
      fs::path out = fs::path(p).replace_extension(".out");
      if (!fs::is_regular_file(out, ec)) continue;
      std::string name = without_extension(p.lexically_relative(root));
      auto [slot, fresh] = found.try_emplace(name, TestCase{name, p, out, ""});
      if (!fresh)
        slot->second.problem = "both " + name + ".lisp and " + name + ".scm exist; a test has one script";
    }
    std::vector<TestCase> tests;
    for (auto &entry : found) tests.push_back(std::move(entry.second));
    return tests;
  }
  if (fs::is_regular_file(root, ec) || fs::exists(root, ec)) {
    if (!is_test_script(root) || !fs::is_regular_file(root, ec))
      path_error("not a .lisp or .scm file: " + arg);
    return {file_test(arg, root)};
  }
  fs::path lisp = fs::path(root).concat(".lisp"), scm = fs::path(root).concat(".scm");
  bool has_lisp = fs::is_regular_file(lisp, ec), has_scm = fs::is_regular_file(scm, ec);
  if (has_lisp && has_scm) path_error("test name " + arg + " is ambiguous: both .lisp and .scm exist");
  if (has_lisp) return {file_test(arg + ".lisp", lisp)};
  if (has_scm) return {file_test(arg + ".scm", scm)};
  path_error("no such file or directory: " + arg);
}

// ---------------------------------------------------------------- test files

std::optional<std::string> read_whole_file(const fs::path &p) {
  std::string text;
  if (!read_file_text(p.string(), &text)) return std::nullopt;
  return text;
}

std::string trimmed(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string_view::npos ? "" : std::string(s.substr(b, e - b + 1));
}

// The REASON of a first line `; kiln-test: skip REASON`, or nullopt to run the test.
std::optional<std::string> skip_reason(const fs::path &script) {
  std::ifstream in(script, std::ios::binary);
  char buf[1024];  // the marker and its reason fit; a longer first line is cut
  in.read(buf, sizeof buf);
  std::string_view line(buf, size_t(std::max<std::streamsize>(in.gcount(), 0)));
  line = line.substr(0, line.find('\n'));
  auto eat = [&](std::string_view word) {
    size_t b = line.find_first_not_of(" \t");
    line.remove_prefix(b == std::string_view::npos ? line.size() : b);
    if (line.substr(0, word.size()) != word) return false;
    line.remove_prefix(word.size());
    return true;
  };
  if (!eat(";")) return std::nullopt;
  while (!line.empty() && line[0] == ';') line.remove_prefix(1);
  if (!eat("kiln-test:") || !eat("skip")) return std::nullopt;
  if (!line.empty() && line[0] != ' ' && line[0] != '\t' && line[0] != '\r') return std::nullopt;
  return trimmed(line);
}

// NAME.status: nullopt for any status; an error text for a malformed file.
std::optional<int> expected_status(const fs::path &script, std::string *error) {
  fs::path p = fs::path(script).replace_extension(".status");
  std::error_code ec;
  if (!fs::exists(p, ec)) return std::nullopt;
  std::optional<std::string> text = read_whole_file(p);
  std::string v = text ? trimmed(*text) : "";
  char *end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (!text || v.empty() || *end || n < 0 || n > 255) {
    *error = p.filename().string() + " must hold an exit status from 0 to 255, got '" +
             (text ? trimmed(text->substr(0, 40)) : "(unreadable)") + "'";
    return std::nullopt;
  }
  return int(n);
}

// Write atomically so an interrupted --update never leaves half a file.
bool write_file_atomically(const fs::path &p, const std::string &text) {
  fs::path tmp = p;
  tmp += ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out << text;
    if (!out.flush()) return false;
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

// Exact comparison, except that one missing final newline does not count.
bool same_output(const std::string &expected, const std::string &actual) {
  auto trim = [](std::string_view s) {
    if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
    return s;
  };
  return trim(expected) == trim(actual);
}

// ---------------------------------------------------------------- running

// Everything a child needs, prepared before fork: after fork in a process that
// may have collector threads, the child only calls async-signal-safe functions.
struct Launch {
  std::string dir, stdin_path;
  std::vector<std::string> args, env;
  std::vector<char *> argv, envp;
};

std::optional<std::string> prepare_launch(const TestCase &t, Launch &l) {
  std::error_code ec;
  fs::path base = fs::path(t.script).replace_extension();
  l.dir = t.script.parent_path().string();
  fs::path in = fs::path(base).concat(".in");
  l.stdin_path = fs::exists(in, ec) ? in.string() : "/dev/null";

  l.args = {"kiln", t.script.filename().string()};
  if (auto args = read_whole_file(fs::path(base).concat(".args")))
    for (std::string &line : split_lines(*args)) l.args.push_back(line);

  for (char **e = environ; *e; e++) l.env.emplace_back(*e);
  if (auto env = read_whole_file(fs::path(base).concat(".env"))) {
    for (std::string &line : split_lines(*env)) {
      if (line.empty() || line[0] == '#') continue;
      size_t eq = line.find('=');
      if (eq == 0 || eq == std::string::npos)
        return "malformed line in " + base.filename().string() + ".env: " + line.substr(0, 200);
      std::string key = line.substr(0, eq + 1);
      std::erase_if(l.env, [&](const std::string &s) { return s.compare(0, key.size(), key) == 0; });
      l.env.push_back(line);
    }
  }
  for (std::string &s : l.args) l.argv.push_back(s.data());
  l.argv.push_back(nullptr);
  for (std::string &s : l.env) l.envp.push_back(s.data());
  l.envp.push_back(nullptr);
  return std::nullopt;
}

void child_fail(const char *what) {
  // Only async-signal-safe calls here.
  const char *err = strerror(errno);
  (void)!write(2, "kiln test: ", 11);
  (void)!write(2, what, strlen(what));
  (void)!write(2, ": ", 2);
  (void)!write(2, err, strlen(err));
  (void)!write(2, "\n", 1);
  _exit(127);
}

// Set by SIGINT, SIGTERM or SIGHUP to the runner. The children run in their
// own process groups, so a Ctrl-C reaches only the runner, which must then stop
// them itself rather than leave a spinning test behind.
volatile sig_atomic_t g_stop_signal = 0;

void on_stop_signal(int sig) { g_stop_signal = sig; }

enum class Phase { running, interrupted, killed };

struct Running {
  size_t index;  // into the test list
  pid_t pid = -1;
  int fd = -1;  // read end of the merged output pipe; -1 after EOF
  bool exited = false;
  int status = 0;
  double cpu_seconds = 0;  // from wait4 once it has exited
  Phase phase = Phase::running;
  bool timed_out = false, too_much_output = false;
  Clock::time_point started, deadline, kill_at;
  std::string output;
  std::string setup_error;
};

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

bool start_test(const std::string &exe, const TestCase &t, double timeout_sec, Running &r) {
  r.started = Clock::now();
  Launch launch;  // must outlive only the fork: the child uses it before exec
  if (auto err = prepare_launch(t, launch)) {
    r.setup_error = *err;
    return false;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    r.setup_error = std::string("pipe: ") + strerror(errno);
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    r.setup_error = std::string("fork: ") + strerror(errno);
    return false;
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own process group, so a timeout reaches any grandchildren too
    signal(SIGPIPE, SIG_DFL);
    if (dup2(fds[1], 1) < 0 || dup2(fds[1], 2) < 0) child_fail("dup2");
    if (chdir(launch.dir.c_str()) != 0) child_fail("chdir");
    int in = open(launch.stdin_path.c_str(), O_RDONLY);
    if (in < 0 || dup2(in, 0) < 0) child_fail("stdin");
    execve(exe.c_str(), launch.argv.data(), launch.envp.data());
    child_fail("exec");
  }
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill
  close(fds[1]);
  r.pid = pid;
  r.fd = fds[0];
  r.deadline = r.started + seconds(timeout_sec);
  return true;
}

// Once only: a second SIGINT makes Kiln give up on the clean stop and die
// with its output unflushed. The child alone when its group is not made yet.
void signal_test(const Running &r, int sig) {
  if (kill(-r.pid, sig) != 0) kill(r.pid, sig);
}

void kill_test(Running &r) {
  signal_test(r, SIGKILL);
  r.phase = Phase::killed;
}

// Keeps output up to the cap; past it the child is killed and the rest is
// dropped, so the pipe still drains.
void append_output(Running &r, const char *buf, size_t n) {
  size_t room = kMaxOutputBytes - std::min(kMaxOutputBytes, r.output.size());
  r.output.append(buf, std::min(room, n));
  if (n > room && !r.too_much_output) {
    r.too_much_output = true;
    kill_test(r);
  }
}

// Reads what the pipe holds; false at EOF or on an error.
bool read_some(Running &r) {
  char buf[65536];
  ssize_t n = read(r.fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  append_output(r, buf, size_t(n));
  return true;
}

// After the group is killed, what it wrote is all in the pipe: take it without
// waiting for EOF, which a process that left the group could withhold.
void drain_and_close(Running &r) {
  fcntl(r.fd, F_SETFL, fcntl(r.fd, F_GETFL) | O_NONBLOCK);
  char buf[65536];
  for (;;) {
    ssize_t n = read(r.fd, buf, sizeof buf);
    if (n > 0) append_output(r, buf, size_t(n));
    else if (n == 0 || errno != EINTR) break;
  }
  close(r.fd);
  r.fd = -1;
}

std::string signal_name(int sig) {
  const char *d = strsignal(sig);
  return std::to_string(sig) + (d ? std::string(" (") + d + ")" : "");
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// ---------------------------------------------------------------- judging

TestResult judge(const TestCase &t, const Running &r, const Options &opt) {
  TestResult res;
  res.name = t.name;
  res.seconds = std::chrono::duration<double>(Clock::now() - r.started).count();
  res.cpu_seconds = r.cpu_seconds;
  std::vector<std::string> problems;
  if (!t.problem.empty()) problems.push_back(t.problem);
  if (!r.setup_error.empty()) problems.push_back(r.setup_error);
  std::string status_error;
  std::optional<int> want_status = expected_status(t.script, &status_error);
  if (!status_error.empty()) problems.push_back(status_error);
  bool ran = t.problem.empty() && r.setup_error.empty();
  if (ran) {
    if (r.timed_out) problems.push_back("timed out after " + format_number(opt.timeout_sec) + " s");
    if (r.too_much_output)
      problems.push_back("killed: output exceeds " + std::to_string(kMaxOutputBytes >> 20) + " MB");
    if (WIFSIGNALED(r.status) && !r.timed_out && !r.too_much_output)
      problems.push_back("killed by signal " + signal_name(WTERMSIG(r.status)));
    if (want_status && WIFEXITED(r.status) && WEXITSTATUS(r.status) != *want_status && !r.timed_out)
      problems.push_back("exit status " + std::to_string(WEXITSTATUS(r.status)) + ", expected " +
                         std::to_string(*want_status));
  }

  std::optional<std::string> expected = read_whole_file(t.out);
  if (opt.update && problems.empty()) {
    if (expected && *expected == r.output) {
      res.verdict = Verdict::pass;
    } else if (write_file_atomically(t.out, r.output)) {
      res.verdict = Verdict::updated;
    } else {
      res.reason = "cannot write " + t.out.string();
      res.detail = "  " + res.reason + "\n";
    }
    return res;
  }
  if (!expected) problems.push_back("cannot read " + t.out.filename().string());
  bool output_ok = !ran || (expected && same_output(*expected, r.output));
  if (problems.empty() && output_ok) {
    res.verdict = Verdict::pass;
    return res;
  }
  if (!output_ok) problems.push_back("output differs from " + t.out.filename().string());
  for (const std::string &p : problems) {
    res.reason += (res.reason.empty() ? "" : "; ") + p;
    res.detail += "  " + p + "\n";
  }
  if (ran && expected && !output_ok) res.detail += unified_diff(*expected, r.output, t.name);
  return res;
}

// ---------------------------------------------------------------- the run loop

class Runner {
 public:
  Runner(const std::vector<TestCase> &tests, const Options &opt) : tests_(tests), opt_(opt) {
    std::error_code ec;
    exe_ = fs::read_symlink("/proc/self/exe", ec).string();
    if (ec || exe_.empty()) exe_ = "/proc/self/exe";
    results_.resize(tests.size());
    limit_ = tests.size();
  }

  // Runs the tests, reporting each through `report` in list order as soon as
  // every earlier one is done; returns the reported results.
  template <class Report> std::vector<TestResult> run(Report report) {
    std::vector<TestResult> done;
    while (next_to_report_ < limit_ && !g_stop_signal) {
      start_more();
      if (!running_.empty()) wait_and_collect();
      while (next_to_report_ < limit_ && results_[next_to_report_]) {
        TestResult &r = *results_[next_to_report_];
        report(r, next_to_report_);
        done.push_back(std::move(r));
        next_to_report_++;
      }
    }
    for (Running &r : running_) {  // beyond a --fail-fast stop, or interrupted
      kill_test(r);
      if (r.fd >= 0) close(r.fd);
      waitpid(r.pid, &r.status, 0);
    }
    return done;
  }

  bool stopped_early() const { return limit_ < tests_.size(); }

 private:
  void finish(const Running &r) {
    TestResult res = judge(tests_[r.index], r, opt_);
    // --fail-fast: tests before the first failure in list order still finish,
    // so the report is the same with any --jobs.
    if (res.verdict == Verdict::fail && opt_.fail_fast) limit_ = std::min(limit_, r.index + 1);
    results_[r.index] = std::move(res);
  }

  void start_more() {
    while (running_.size() < size_t(opt_.jobs) && next_to_start_ < limit_) {
      size_t i = next_to_start_++;
      const TestCase &t = tests_[i];
      if (t.problem.empty()) {
        if (std::optional<std::string> why = skip_reason(t.script)) {
          results_[i] = TestResult{t.name, Verdict::skip, 0, *why, ""};
          continue;
        }
      }
      Running r;
      r.index = i;
      if (t.problem.empty() && start_test(exe_, t, opt_.timeout_sec, r)) running_.push_back(std::move(r));
      else finish(r);
    }
  }

  void wait_and_collect() {
    // Wait for output, or for the nearest deadline; poll again soon while a
    // child has closed its pipe but not yet been reaped.
    std::vector<pollfd> pfds;
    auto now = Clock::now();
    long long wait_ms = 1000;
    for (Running &r : running_) {
      if (r.fd >= 0) pfds.push_back({r.fd, POLLIN, 0});
      else wait_ms = std::min(wait_ms, 10LL);
      auto next = r.phase == Phase::running ? r.deadline : r.kill_at;
      if (r.phase == Phase::killed) next = now + std::chrono::milliseconds(10);
      long long left = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1;
      wait_ms = std::max(0LL, std::min(wait_ms, left));
    }
    if (poll(pfds.data(), pfds.size(), int(wait_ms)) < 0 && errno != EINTR) {
      std::perror("kiln test: poll");
      std::exit(2);
    }

    for (Running &r : running_) {
      auto it = std::find_if(pfds.begin(), pfds.end(), [&](const pollfd &p) { return p.fd == r.fd; });
      if (r.fd >= 0 && it != pfds.end() && it->revents && !read_some(r)) {
        close(r.fd);
        r.fd = -1;
      }
      struct rusage usage {};
      if (!r.exited && wait4(r.pid, &r.status, WNOHANG, &usage) == r.pid) {
        r.exited = true;
        r.cpu_seconds = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                        double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
      }
      now = Clock::now();
      bool done = r.exited && r.fd < 0;
      if (!done && r.phase == Phase::running && now >= r.deadline) {
        r.timed_out = true;
        r.phase = Phase::interrupted;
        r.kill_at = now + seconds(kInterruptGraceSec);
        signal_test(r, SIGINT);
      } else if (!done && r.phase == Phase::interrupted && now >= r.kill_at) {
        kill_test(r);
      }
      if (r.phase == Phase::killed && r.fd >= 0) drain_and_close(r);
    }
    for (size_t i = 0; i < running_.size();) {
      Running &r = running_[i];
      if (r.exited && r.fd < 0) {
        kill(-r.pid, SIGKILL);  // leftover grandchildren, if any
        finish(r);
        running_.erase(running_.begin() + long(i));
      } else {
        i++;
      }
    }
  }

  const std::vector<TestCase> &tests_;
  const Options &opt_;
  std::string exe_;
  std::vector<std::optional<TestResult>> results_;
  std::vector<Running> running_;
  size_t next_to_start_ = 0, next_to_report_ = 0;
  size_t limit_;  // tests from here on are not run (--fail-fast)
};

void print(const std::string &s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

// Can FILE be written? Asked before the run, so a typo costs nothing.
bool writable(const std::string &file, std::string *why) {
  int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    *why = strerror(errno);
    return false;
  }
  close(fd);
  return true;
}

}  // namespace

int run_test_command(int argc, char **argv) {
  Options opt = parse_options(argc, argv);
  if (opt.help) {
    print(kTestHelp);
    return 0;
  }
  std::vector<TestCase> tests;
  for (const std::string &p : opt.paths) {
    std::vector<TestCase> found = discover(p);
    tests.insert(tests.end(), found.begin(), found.end());
  }
  size_t discovered = tests.size();
  if (opt.filter)
    std::erase_if(tests, [&](const TestCase &t) { return t.name.find(*opt.filter) == std::string::npos; });
  std::string why;
  if (!opt.list && !opt.junit.empty() && !writable(opt.junit, &why))
    usage_error("cannot write --junit file " + opt.junit + ": " + why);

  if (tests.empty()) {
    if (!opt.list) print(opt.tap ? "TAP version 13\n1..0\n# 0 passed, 0 failed\n" : "0 passed, 0 failed\n");
    if (discovered == 0)
      std::fprintf(stderr,
                   "kiln test: no tests found (a test is NAME.lisp or NAME.scm with NAME.out beside it)\n");
    else
      std::fprintf(stderr, "kiln test: no tests found: none of the %zu tests has a name containing '%s'\n",
                   discovered, opt.filter->c_str());
    return 1;
  }
  if (opt.list) {
    for (const TestCase &t : tests) print(t.name + "\n");
    return 0;
  }

  signal(SIGPIPE, SIG_IGN);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction sa = {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);  // no SA_RESTART: poll returns at once
  }
  if (opt.tap) print("TAP version 13\n1.." + std::to_string(tests.size()) + "\n");
  auto started = Clock::now();
  Tally tally;
  Runner runner(tests, opt);
  std::vector<TestResult> results = runner.run([&](const TestResult &r, size_t i) {
    tally.count(r.verdict);
    print(opt.tap ? tap_report(r, i + 1) : console_report(r));
  });
  double total = std::chrono::duration<double>(Clock::now() - started).count();
  if (g_stop_signal) {
    std::fflush(stdout);
    std::fprintf(stderr, "kiln test: interrupted by signal %d; the running tests were killed\n",
                 int(g_stop_signal));
    return 128 + g_stop_signal;
  }

  std::string tail;
  if (runner.stopped_early()) {
    size_t not_run = tests.size() - results.size();
    tail += opt.tap ? "Bail out! --fail-fast: " : "stopped by --fail-fast: ";
    tail += std::to_string(not_run) + " test" + (not_run == 1 ? "" : "s") + " not run\n";
  }
  const char *comment = opt.tap ? "# " : "";
  if (tally.failed) {
    tail += std::string(comment) + "failed:\n";
    for (const TestResult &r : results)
      if (r.verdict == Verdict::fail) tail += std::string(comment) + "  " + r.name + "\n";
  }
  tail += comment + summary_line(tally) + "\n";
  print(tail);

  int code = tally.failed == 0 && tally.ran() > 0 ? 0 : 1;
  if (tally.ran() == 0) std::fprintf(stderr, "kiln test: no test ran: all %d skipped\n", tally.skipped);
  if (!opt.junit.empty() && !write_file_atomically(opt.junit, junit_xml(results, total))) {
    std::fprintf(stderr, "kiln test: cannot write --junit file %s\n", opt.junit.c_str());
    code = 2;
  }
  return code;
}

}  // namespace kiln

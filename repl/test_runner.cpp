// test_runner.cpp — `kiln test` (docs/testing.md); see test_runner.h for the invariant.
//
// Each test NAME.lisp runs as `kiln NAME.lisp [ARGS from NAME.args]` with its
// directory as cwd, stdout and stderr merged into one pipe, stdin from NAME.in
// or /dev/null, the inherited environment plus NAME.env. Up to --jobs children
// run at once; one poll loop collects their output and enforces the timeout,
// and results are printed in sorted order however the children finish.
#include "repl/test_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/eval.h"

extern char **environ;

namespace kiln {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A child printing more than this is killed: a runaway loop must not eat memory.
constexpr size_t kMaxOutputBytes = 64u << 20;
// Lines of unchanged context around each diff hunk, as `diff -u`.
constexpr size_t kDiffContext = 3;
// Above this many LCS table cells the diff shows the changed middle as one hunk.
constexpr size_t kMaxLcsCells = 16u << 20;

struct Options {
  bool update = false;
  int jobs = 1;
  double timeout_sec = 60;
  std::vector<std::string> paths;
};

struct TestCase {
  std::string name;  // relative to its PATH argument (a file PATH: as given), without .lisp
  fs::path lisp;     // absolute path of NAME.lisp
  fs::path out;      // NAME.out beside it
};

struct Outcome {
  std::string output;
  bool timed_out = false;
  bool too_much_output = false;
  int term_signal = 0;  // nonzero if the child died of a signal
  std::string setup_error;
};

// ---------------------------------------------------------------- options

[[noreturn]] void usage_error(const std::string &msg) {
  std::fprintf(stderr, "kiln test: %s\nusage: kiln test [--update] [--jobs N] [--timeout SEC] PATH...\n",
               msg.c_str());
  std::fflush(stderr);
  std::exit(2);
}

double parse_seconds(const std::string &v, const char *what) {
  char *end = nullptr;
  double t = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !(t > 0))
    usage_error(std::string(what) + " needs a positive number of seconds, got '" + v + "'");
  return t;
}

std::optional<Options> parse_options(int argc, char **argv) {
  Options opt;
  // Slow builds (sanitizers, GC stress) raise the default without editing every caller.
  if (const char *env = std::getenv("KILN_TEST_TIMEOUT"); env && *env)
    opt.timeout_sec = parse_seconds(env, "KILN_TEST_TIMEOUT");
  bool only_paths = false;
  for (int i = 1; i < argc; i++) {
    std::string_view a = argv[i];
    auto value_of = [&](std::string_view flag) -> std::string {
      if (a.size() > flag.size() && a.substr(0, flag.size()) == flag && a[flag.size()] == '=')
        return std::string(a.substr(flag.size() + 1));
      if (i + 1 >= argc) usage_error(std::string(flag) + " needs a value");
      return argv[++i];
    };
    auto is_flag = [&](std::string_view flag) {
      return a == flag ||
             (a.size() > flag.size() && a.substr(0, flag.size()) == flag && a[flag.size()] == '=');
    };
    if (only_paths || a.empty() || a[0] != '-' || a == "-") {
      opt.paths.emplace_back(a);
    } else if (a == "--") {
      only_paths = true;
    } else if (a == "--update" || a == "-u") {
      opt.update = true;
    } else if (is_flag("--jobs") || a == "-j") {
      std::string v = value_of(a == "-j" ? "-j" : "--jobs");
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < 1 || n > 256)
        usage_error("--jobs needs a number from 1 to 256, got '" + v + "'");
      opt.jobs = int(n);
    } else if (is_flag("--timeout")) {
      opt.timeout_sec = parse_seconds(value_of("--timeout"), "--timeout");
    } else {
      usage_error("unknown option: " + std::string(a));
    }
  }
  if (opt.paths.empty()) usage_error("no PATH given");
  return opt;
}

// ---------------------------------------------------------------- discovery

std::string without_lisp_suffix(std::string s) { return s.substr(0, s.size() - 5); }

bool has_lisp_suffix(const fs::path &p) { return p.extension() == ".lisp"; }

// Tests under one PATH argument, sorted by name. A file PATH is one test (its
// .out may be missing only with --update, which creates it).
std::vector<TestCase> discover(const std::string &arg) {
  std::vector<TestCase> found;
  std::error_code ec;
  fs::path root = fs::absolute(arg, ec).lexically_normal();
  if (fs::is_regular_file(root, ec)) {
    if (!has_lisp_suffix(root)) usage_error("not a .lisp file: " + arg);
    fs::path out = fs::path(root).replace_extension(".out");
    found.push_back({without_lisp_suffix(fs::path(arg).lexically_normal().generic_string()), root, out});
    return found;
  }
  auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path &p = it->path();
    if (!has_lisp_suffix(p) || !it->is_regular_file(ec)) continue;
    fs::path out = fs::path(p).replace_extension(".out");
    if (!fs::is_regular_file(out, ec)) continue;
    std::string rel = p.lexically_relative(root).generic_string();
    found.push_back({without_lisp_suffix(rel), p, out});
  }
  std::sort(found.begin(), found.end(), [](const TestCase &a, const TestCase &b) { return a.name < b.name; });
  return found;
}

// ---------------------------------------------------------------- files

std::optional<std::string> read_whole_file(const fs::path &p) {
  std::string text;
  if (!read_file_text(p.string(), &text)) return std::nullopt;
  return text;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
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

// ---------------------------------------------------------------- diff

enum class Edit { Same, Del, Add };
struct EditLine {
  Edit kind;
  size_t a, b;  // line index in expected (Same/Del) and actual (Same/Add)
};

// The edit script turning `a` into `b`: common prefix and suffix, then a
// longest-common-subsequence table over the changed middle.
std::vector<EditLine> edit_script(const std::vector<std::string> &a, const std::vector<std::string> &b) {
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) pre++;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
    suf++;
  size_t n = a.size() - pre - suf, m = b.size() - pre - suf;

  std::vector<EditLine> script;
  for (size_t i = 0; i < pre; i++) script.push_back({Edit::Same, i, i});
  if ((n + 1) * (m + 1) > kMaxLcsCells) {
    for (size_t i = 0; i < n; i++) script.push_back({Edit::Del, pre + i, pre});
    for (size_t j = 0; j < m; j++) script.push_back({Edit::Add, pre + n, pre + j});
  } else {
    // lcs[i][j] = LCS length of a[pre+i..] and b[pre+j..]
    std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t & { return lcs[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = a[pre + i] == b[pre + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[pre + i] == b[pre + j]) {
        script.push_back({Edit::Same, pre + i, pre + j});
        i++, j++;
      } else if (j < m && (i == n || at(i, j + 1) > at(i + 1, j))) {
        script.push_back({Edit::Add, pre + i, pre + j});
        j++;
      } else {
        script.push_back({Edit::Del, pre + i, pre + j});
        i++;
      }
    }
  }
  for (size_t k = 0; k < suf; k++) script.push_back({Edit::Same, pre + n + k, pre + m + k});
  return script;
}

// "-a,b" / "+c,d" ranges as diff -u writes them (start is 1-based; an empty
// range names the line before it).
std::string hunk_range(size_t start, size_t count) {
  if (count == 1) return std::to_string(start + 1);
  return std::to_string(count == 0 ? start : start + 1) + "," + std::to_string(count);
}

std::string unified_diff(const std::string &expected, const std::string &actual, const std::string &label) {
  std::vector<std::string> a = split_lines(expected), b = split_lines(actual);
  std::vector<EditLine> script = edit_script(a, b);
  std::string out = "--- " + label + ".out (expected)\n+++ " + label + " (actual)\n";
  size_t k = 0;
  while (k < script.size()) {
    while (k < script.size() && script[k].kind == Edit::Same) k++;
    if (k == script.size()) break;
    size_t begin = k >= kDiffContext ? k - kDiffContext : 0;
    // Extend the hunk while the next change is within 2*context lines.
    size_t end = k;
    for (;;) {
      while (end < script.size() && script[end].kind != Edit::Same) end++;
      size_t same = end;
      while (same < script.size() && script[same].kind == Edit::Same && same - end < 2 * kDiffContext) same++;
      if (same < script.size() && script[same].kind != Edit::Same) {
        end = same;
        continue;
      }
      end = std::min(script.size(), end + kDiffContext);
      break;
    }
    size_t a_start = script[begin].a, b_start = script[begin].b, a_count = 0, b_count = 0;
    std::string body;
    for (size_t i = begin; i < end; i++) {
      const EditLine &e = script[i];
      if (e.kind == Edit::Same) {
        body += " " + a[e.a] + "\n";
        a_count++, b_count++;
      } else if (e.kind == Edit::Del) {
        body += "-" + a[e.a] + "\n";
        a_count++;
      } else {
        body += "+" + b[e.b] + "\n";
        b_count++;
      }
    }
    out += "@@ -" + hunk_range(a_start, a_count) + " +" + hunk_range(b_start, b_count) + " @@\n" + body;
    k = end;
  }
  return out;
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
  fs::path base = t.lisp;
  base.replace_extension();
  l.dir = t.lisp.parent_path().string();
  fs::path in = fs::path(base).concat(".in");
  l.stdin_path = fs::exists(in, ec) ? in.string() : "/dev/null";

  l.args = {"kiln", t.lisp.filename().string()};
  if (auto args = read_whole_file(fs::path(base).concat(".args")))
    for (std::string &line : split_lines(*args)) l.args.push_back(line);

  for (char **e = environ; *e; e++) l.env.emplace_back(*e);
  if (auto env = read_whole_file(fs::path(base).concat(".env"))) {
    for (std::string &line : split_lines(*env)) {
      if (line.empty() || line[0] == '#') continue;
      size_t eq = line.find('=');
      if (eq == 0 || eq == std::string::npos)
        return "malformed line in " + base.filename().string() + ".env: " + line;
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

struct Running {
  size_t index;  // into the test list
  pid_t pid = -1;
  int fd = -1;  // read end of the merged output pipe; -1 after EOF
  bool exited = false;
  int status = 0;
  Clock::time_point deadline;
  Outcome outcome;
};

bool start_test(const std::string &exe, const TestCase &t, double timeout_sec, Running &r) {
  Launch launch;  // must outlive only the fork: the child uses it before exec
  if (auto err = prepare_launch(t, launch)) {
    r.outcome.setup_error = *err;
    return false;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    r.outcome.setup_error = std::string("pipe: ") + strerror(errno);
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    r.outcome.setup_error = std::string("fork: ") + strerror(errno);
    return false;
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own process group, so a timeout kills any grandchildren too
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
  r.deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_sec));
  return true;
}

void kill_test(Running &r) {
  kill(-r.pid, SIGKILL);
  kill(r.pid, SIGKILL);
}

std::string signal_name(int sig) {
  const char *d = strsignal(sig);
  return std::to_string(sig) + (d ? std::string(" (") + d + ")" : "");
}

std::string format_timeout(double sec) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", sec);
  return buf;
}

// ---------------------------------------------------------------- reporting

struct Report {
  std::string text;
  bool passed = false;
};

Report judge(const TestCase &t, const Outcome &o, const Options &opt) {
  Report r;
  std::vector<std::string> problems;
  if (!o.setup_error.empty()) problems.push_back(o.setup_error);
  if (o.timed_out) problems.push_back("timed out after " + format_timeout(opt.timeout_sec) + " s");
  if (o.too_much_output)
    problems.push_back("killed: output exceeds " + std::to_string(kMaxOutputBytes >> 20) + " MB");
  if (o.term_signal && !o.timed_out && !o.too_much_output)
    problems.push_back("killed by signal " + signal_name(o.term_signal));

  std::optional<std::string> expected = read_whole_file(t.out);
  if (opt.update && problems.empty()) {
    if (expected && *expected == o.output) {
      r.text = "PASS " + t.name + "\n";
    } else if (write_file_atomically(t.out, o.output)) {
      r.text = "UPDATE " + t.name + "\n";
    } else {
      r.text = "FAIL " + t.name + "\n  cannot write " + t.out.string() + "\n";
      return r;
    }
    r.passed = true;
    return r;
  }
  if (!expected) problems.push_back("cannot read " + t.out.filename().string());
  bool output_ok = expected && same_output(*expected, o.output);
  if (problems.empty() && output_ok) {
    r.text = "PASS " + t.name + "\n";
    r.passed = true;
    return r;
  }
  r.text = "FAIL " + t.name + "\n";
  for (const std::string &p : problems) r.text += "  " + p + "\n";
  if (expected && !output_ok) r.text += unified_diff(*expected, o.output, t.name);
  return r;
}

// Runs every test with up to opt.jobs children at once; prints reports in
// list order as soon as every earlier test has been reported.
std::pair<int, int> run_all(const std::vector<TestCase> &tests, const Options &opt) {
  std::string exe;
  {
    std::error_code ec;
    exe = fs::read_symlink("/proc/self/exe", ec).string();
    if (ec || exe.empty()) exe = "/proc/self/exe";
  }
  std::vector<std::optional<Report>> reports(tests.size());
  std::vector<Running> running;
  size_t next_to_start = 0, next_to_print = 0;
  int passed = 0, failed = 0;

  auto finish = [&](Running &r) {
    reports[r.index] = judge(tests[r.index], r.outcome, opt);
    while (next_to_print < tests.size() && reports[next_to_print]) {
      const Report &rep = *reports[next_to_print];
      std::fwrite(rep.text.data(), 1, rep.text.size(), stdout);
      std::fflush(stdout);
      (rep.passed ? passed : failed)++;
      next_to_print++;
    }
  };

  while (next_to_print < tests.size()) {
    while (running.size() < size_t(opt.jobs) && next_to_start < tests.size()) {
      Running r;
      r.index = next_to_start++;
      if (start_test(exe, tests[r.index], opt.timeout_sec, r)) {
        running.push_back(std::move(r));
      } else {
        finish(r);
      }
    }
    if (running.empty()) continue;

    // Wait for output, or for the nearest deadline; poll again soon while a
    // child has closed its pipe but not yet been reaped.
    std::vector<pollfd> pfds;
    auto now = Clock::now();
    long long wait_ms = 1000;
    for (Running &r : running) {
      if (r.fd >= 0) pfds.push_back({r.fd, POLLIN, 0});
      else wait_ms = std::min(wait_ms, 10LL);
      long long left = std::chrono::duration_cast<std::chrono::milliseconds>(r.deadline - now).count() + 1;
      wait_ms = std::max(0LL, std::min(wait_ms, left));
    }
    if (poll(pfds.data(), pfds.size(), int(wait_ms)) < 0 && errno != EINTR) {
      std::perror("kiln test: poll");
      std::exit(2);
    }

    char buf[65536];
    for (Running &r : running) {
      auto it = std::find_if(pfds.begin(), pfds.end(), [&](const pollfd &p) { return p.fd == r.fd; });
      if (r.fd >= 0 && it != pfds.end() && it->revents) {
        ssize_t n = read(r.fd, buf, sizeof buf);
        if (n > 0) {
          r.outcome.output.append(buf, size_t(n));
          if (r.outcome.output.size() > kMaxOutputBytes && !r.outcome.too_much_output) {
            r.outcome.too_much_output = true;
            kill_test(r);
          }
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          close(r.fd);
          r.fd = -1;
        }
      }
      if (!r.exited && waitpid(r.pid, &r.status, WNOHANG) == r.pid) r.exited = true;
      if (Clock::now() >= r.deadline && !r.outcome.timed_out && (!r.exited || r.fd >= 0)) {
        r.outcome.timed_out = true;
        kill_test(r);
      }
    }
    for (size_t i = 0; i < running.size();) {
      Running &r = running[i];
      // Done once the child has exited and the pipe has drained. A grandchild
      // holding the pipe open is killed through the process group at the deadline.
      if (r.outcome.timed_out && r.fd >= 0 && r.exited) {
        close(r.fd);
        r.fd = -1;
      }
      if (r.outcome.timed_out && !r.exited) {
        waitpid(r.pid, &r.status, 0);
        r.exited = true;
      }
      if (r.exited && r.fd < 0) {
        if (WIFSIGNALED(r.status)) r.outcome.term_signal = WTERMSIG(r.status);
        kill(-r.pid, SIGKILL);  // leftover grandchildren, if any
        finish(r);
        running.erase(running.begin() + long(i));
      } else {
        i++;
      }
    }
  }
  return {passed, failed};
}

}  // namespace

int run_test_command(int argc, char **argv) {
  Options opt = *parse_options(argc, argv);
  for (const std::string &p : opt.paths) {
    std::error_code ec;
    if (!fs::exists(p, ec)) {
      std::fprintf(stderr, "kiln test: no such file or directory: %s\n", p.c_str());
      return 2;
    }
  }
  std::vector<TestCase> tests;
  for (const std::string &p : opt.paths) {
    std::vector<TestCase> found = discover(p);
    tests.insert(tests.end(), found.begin(), found.end());
  }
  std::fflush(stdout);
  signal(SIGPIPE, SIG_IGN);
  auto [passed, failed] = run_all(tests, opt);
  std::printf("%d passed, %d failed\n", passed, failed);
  std::fflush(stdout);
  return failed == 0 ? 0 : 1;
}

}  // namespace kiln

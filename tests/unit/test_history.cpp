// Unit tests for repl/history.h: the history file stays private (0600) through
// every write, and trimming never shares or follows a temporary file.
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "repl/history.h"

using namespace kiln;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/kiln_history_test_XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    int rc = std::system(("rm -rf '" + path + "'").c_str());
    (void)rc;
  }
};

// umask 022, the common default: what the old trim's 0644 came from.
struct Umask {
  mode_t old;
  explicit Umask(mode_t m) : old(umask(m)) {}
  ~Umask() { umask(old); }
};

mode_t mode_of(const std::string &path) {
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::vector<std::string> names_in(const std::string &dir) {
  std::vector<std::string> names;
  DIR *d = opendir(dir.c_str());
  REQUIRE(d != nullptr);
  while (dirent *e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  return names;
}

std::vector<std::string> lines_of(const std::string &path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  std::string l;
  while (std::getline(in, l)) lines.push_back(l);
  return lines;
}

void write_entries(const std::string &path, int n) {
  for (int i = 0; i < n; i++) append_history(path, "(entry " + std::to_string(i) + ")");
}

}  // namespace

TEST_CASE("history: the file is created with mode 0600", "[history]") {
  TempDir dir;
  Umask u(022);
  std::string path = dir.path + "/sub/history";
  append_history(path, "(+ 1 2)");
  CHECK(mode_of(path) == 0600);
  CHECK(mode_of(dir.path + "/sub") == 0700);
}

TEST_CASE("history: a trim keeps the last entries and mode 0600", "[history]") {
  TempDir dir;
  Umask u(022);
  std::string path = dir.path + "/history";
  write_entries(path, 25);
  std::vector<std::string> got = load_history(path, 10);
  REQUIRE(got.size() == 10);
  CHECK(got.front() == "(entry 15)");
  CHECK(got.back() == "(entry 24)");
  std::vector<std::string> lines = lines_of(path);
  REQUIRE(lines.size() == 10);
  CHECK(lines.front() == "(entry 15)");
  CHECK(mode_of(path) == 0600);
  // No temporary file is left behind.
  CHECK(names_in(dir.path) == std::vector<std::string>{"history"});
  // The next entry is appended to the trimmed file, which is still private.
  append_history(path, "(next)");
  CHECK(lines_of(path).size() == 11);
  CHECK(mode_of(path) == 0600);
}

TEST_CASE("history: a trim never writes through a planted temporary name", "[history]") {
  TempDir dir;
  std::string path = dir.path + "/history";
  std::string victim = dir.path + "/victim";
  { std::ofstream(victim) << "keep me\n"; }
  // The old trim wrote PATH.tmp, following a link someone left there.
  REQUIRE(symlink(victim.c_str(), (path + ".tmp").c_str()) == 0);
  write_entries(path, 30);
  CHECK(load_history(path, 10).size() == 10);
  CHECK(lines_of(victim) == std::vector<std::string>{"keep me"});
  CHECK(lines_of(path).size() == 10);
  CHECK(mode_of(path) == 0600);
}

TEST_CASE("history: sessions trimming at once leave one whole history", "[history]") {
  TempDir dir;
  std::string path = dir.path + "/history";
  write_entries(path, 3000);
  constexpr int kSessions = 8;
  std::vector<pid_t> kids;
  for (int i = 0; i < kSessions; i++) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // Each child is a REPL starting up: load (and trim) the same file.
      std::vector<std::string> got = load_history(path, 1000);
      _exit(got.size() == 1000 && got.back() == "(entry 2999)" ? 0 : 1);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  std::vector<std::string> lines = lines_of(path);
  REQUIRE(lines.size() == 1000);
  CHECK(lines.front() == "(entry 2000)");
  CHECK(lines.back() == "(entry 2999)");
  CHECK(mode_of(path) == 0600);
  CHECK(names_in(dir.path) == std::vector<std::string>{"history"});
}

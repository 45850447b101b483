#include "repl/history.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace kiln {

std::string history_file_path() {
  const char *explicit_path = std::getenv("KILN_HISTFILE");
  if (explicit_path && *explicit_path) return explicit_path;
  const char *state = std::getenv("XDG_STATE_HOME");
  // The XDG spec says relative values are invalid and must be ignored.
  if (state && state[0] == '/') return std::string(state) + "/kiln/history";
  const char *home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.local/state/kiln/history";
  return "";
}

std::string encode_history_entry(const std::string &entry) {
  std::string out;
  for (char c : entry) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string decode_history_entry(const std::string &line) {
  std::string out;
  for (size_t i = 0; i < line.size(); i++) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      char next = line[++i];
      out += next == 'n' ? '\n' : next;
    } else {
      out += line[i];
    }
  }
  return out;
}

static void make_parent_dirs(const std::string &path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    mkdir(path.substr(0, slash).c_str(), 0700);  // EEXIST is the common case
  }
}

static bool write_all(int fd, const std::string &text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

// Replaces the file with `lines` through a temporary file of this session's
// own: mkostemp creates it with O_EXCL and mode 0600 under a fresh name, so
// two sessions trimming at once never write into one file, a link planted at
// a predictable name is never followed, and the history stays private. It is
// fsynced before the rename, so a crash leaves the old history or the whole
// new one.
static void rewrite_history(const std::string &path, const std::vector<std::string> &lines) {
  std::string text;
  for (const std::string &l : lines) text += l + '\n';
  std::string tmp = path + ".XXXXXX";
  int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return;
  bool ok = fchmod(fd, 0600) == 0 && write_all(fd, text) && fsync(fd) == 0;
  ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) unlink(tmp.c_str());
}

std::vector<std::string> load_history(const std::string &path, size_t keep) {
  std::vector<std::string> lines;
  if (path.empty()) return lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  size_t total = lines.size();
  if (total > keep) {
    lines.erase(lines.begin(), lines.end() - long(keep));
    if (total > 2 * keep) rewrite_history(path, lines);
  }
  std::vector<std::string> entries;
  entries.reserve(lines.size());
  for (const std::string &l : lines) entries.push_back(decode_history_entry(l));
  return entries;
}

void append_history(const std::string &path, const std::string &entry) {
  if (path.empty()) return;
  make_parent_dirs(path);
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return;
  std::string line = encode_history_entry(entry) + "\n";
  ssize_t ignored = write(fd, line.data(), line.size());
  (void)ignored;
  close(fd);
}

}  // namespace kiln

#include "repl/jupyter_requests.h"

#include <cstring>
#include <string_view>

#include "repl/commands.h"
#include "repl/completion.h"
#include "repl/entry_scan.h"
#include "repl/line_editor.h"
#include "runtime/error.h"

namespace kiln::jupyter {

json kernel_info_content() {
  return json{
      {"status", "ok"},
      {"protocol_version", "5.3"},
      {"implementation", "kiln"},
      {"implementation_version", KILN_VERSION},
      {"language_info",
       {{"name", "kiln"},
        {"version", KILN_VERSION},
        {"mimetype", "text/x-scheme"},
        {"file_extension", ".lisp"},
        {"pygments_lexer", "scheme"},
        {"codemirror_mode", "scheme"}}},
      {"banner", std::string("Kiln ") + KILN_VERSION +
                     " — a Scheme-flavoured Lisp with tensors and autodiff (,help lists the REPL commands)"},
      {"help_links", json::array()},
  };
}

// Bytes of code before code point `pos` (the whole text when pos is past it).
static size_t byte_offset(const std::string &code, int64_t pos) {
  size_t i = 0;
  for (int64_t cp = 0; i < code.size() && cp < pos; cp++) {
    i++;
    while (i < code.size() && ((unsigned char)code[i] & 0xC0) == 0x80) i++;
  }
  return i;
}

static int64_t code_points(std::string_view s) {
  int64_t n = 0;
  for (char c : s)
    if (((unsigned char)c & 0xC0) != 0x80) n++;
  return n;
}

// What ends a name: whitespace, brackets, quotes and the comma.
static bool is_delimiter(char c) { return std::strchr(" \t\r\n()[]{}\"';`,", c) != nullptr || c == '\0'; }

static std::string text_field(const json &request, const char *name) {
  auto it = request.find(name);
  return it != request.end() && it->is_string() ? it->get<std::string>() : "";
}

static size_t cursor_of(const json &request, const std::string &code) {
  auto it = request.find("cursor_pos");
  int64_t pos = it != request.end() && it->is_number_integer() ? it->get<int64_t>() : code_points(code);
  return byte_offset(code, pos < 0 ? 0 : pos);
}

json is_complete_content(const json &request) {
  std::string code = text_field(request, "code");
  if (is_repl_command(code)) return json{{"status", "complete"}};
  EntryScan scan = scan_entry(code);
  if (scan.unmatched_close) return json{{"status", "invalid"}};
  if (scan.complete()) return json{{"status", "complete"}};
  return json{{"status", "incomplete"}, {"indent", std::string(size_t(scan.depth) * 2, ' ')}};
}

json complete_content(const json &request) {
  std::string code = text_field(request, "code");
  size_t end = cursor_of(request, code);
  size_t start = end;
  while (start > 0 && !is_delimiter(code[start - 1])) start--;
  // The REPL's rules work on one line: the cursor's.
  size_t line_start = start;
  while (line_start > 0 && code[line_start - 1] != '\n') line_start--;
  std::string prefix = code.substr(start, end - start);
  json matches = json::array();
  CompletionKind kind =
      completion_kind(std::string_view(code).substr(line_start, end - line_start), start - line_start);
  if (kind == CompletionKind::command) {
    for (const char *const *c = kReplCommandNames; *c; c++)
      if (std::string_view(*c).substr(0, prefix.size()) == prefix) matches.push_back(*c);
  } else if (kind == CompletionKind::name) {
    for (const std::string &n : bound_names())
      // Internal %names only when asked for.
      if (n.compare(0, prefix.size(), prefix) == 0 && (n[0] != '%' || !prefix.empty())) matches.push_back(n);
  }
  int64_t cursor_start = code_points(std::string_view(code).substr(0, start));
  return json{{"status", "ok"},
              {"matches", matches},
              {"cursor_start", cursor_start},
              {"cursor_end", cursor_start + code_points(prefix)},
              {"metadata", json::object()}};
}

json inspect_content(const json &request) {
  std::string code = text_field(request, "code");
  size_t at = cursor_of(request, code);
  size_t start = at, end = at;
  while (start > 0 && !is_delimiter(code[start - 1])) start--;
  while (end < code.size() && !is_delimiter(code[end])) end++;
  std::string name = code.substr(start, end - start);
  std::string text;
  bool found = false;
  if (!name.empty()) {
    try {
      found = describe_name(name, &text);
    } catch (LispError &) {
      found = false;
    }
  }
  json data = json::object();
  if (found) data["text/plain"] = text;
  return json{{"status", "ok"}, {"found", found}, {"data", data}, {"metadata", json::object()}};
}

}  // namespace kiln::jupyter

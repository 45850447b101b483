#include "repl/completion.h"

#include <algorithm>

#include "repl/entry_scan.h"
#include "runtime/eval.h"
#include "runtime/object.h"

namespace kiln {

static bool is_spaces_and_tabs(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t'; });
}

static std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

CompletionKind completion_kind(std::string_view line, size_t word_start) {
  word_start = std::min(word_start, line.size());
  std::string_view before = line.substr(0, word_start);
  EntryScan scan = scan_entry(before);
  if (scan.in_string) {
    std::string_view head = trim_right(before.substr(0, scan.string_start));
    for (std::string_view opener : {"(load", "[load"}) {
      if (head.size() >= opener.size() && head.substr(head.size() - opener.size()) == opener) {
        return CompletionKind::file;
      }
    }
    size_t first = head.find_first_not_of(" \t");
    if (first != std::string_view::npos && head.substr(first) == ",load") return CompletionKind::file;
    return CompletionKind::none;
  }
  if (word_start >= 1 && line[word_start - 1] == ',' &&
      is_spaces_and_tabs(before.substr(0, word_start - 1))) {
    return CompletionKind::command;
  }
  return CompletionKind::name;
}

std::vector<std::string> bound_names() {
  std::vector<std::string> names;
  for_each_symbol([&](Value s) {
    if (sym(s)->global != NOVALUE || is_special_form_name(s)) names.emplace_back(symbol_name(s));
  });
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace kiln

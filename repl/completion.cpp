#include "completion.h"

#include <algorithm>

#include "runtime/eval.h"
#include "runtime/object.h"

namespace kiln {

// Whether `text` ends inside a string literal (comments and char literals
// such as #\" are skipped the way the reader skips them); *quote_at is set
// to the opening quote's position.
static bool ends_in_string(std::string_view text, size_t *quote_at) {
  bool in_string = false;
  for (size_t i = 0; i < text.size(); i++) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') i++;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
      *quote_at = i;
    } else if (c == ';') {
      while (i < text.size() && text[i] != '\n') i++;
    } else if (c == '#' && i + 1 < text.size() && text[i + 1] == '\\') {
      i += 2;  // the character after #\ is literal, even a quote or bracket
    }
  }
  return in_string;
}

static bool is_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t'; });
}

static std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

CompletionKind completion_kind(std::string_view line, size_t word_start) {
  word_start = std::min(word_start, line.size());
  std::string_view before = line.substr(0, word_start);
  size_t quote_at = 0;
  if (ends_in_string(before, &quote_at)) {
    std::string_view head = trim_right(before.substr(0, quote_at));
    for (std::string_view opener : {"(load", "[load"}) {
      if (head.size() >= opener.size() && head.substr(head.size() - opener.size()) == opener) {
        return CompletionKind::file;
      }
    }
    size_t first = head.find_first_not_of(" \t");
    if (first != std::string_view::npos && head.substr(first) == ",load") return CompletionKind::file;
    return CompletionKind::none;
  }
  if (word_start >= 1 && line[word_start - 1] == ',' && is_blank(before.substr(0, word_start - 1))) {
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

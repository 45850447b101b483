#include "runtime/srcloc.h"

#include <vector>

namespace kiln {

static std::vector<std::string> &file_table() {
  static auto *t = new std::vector<std::string>{""};
  return *t;
}

uint32_t register_source_file(std::string_view name) {
  auto &t = file_table();
  for (size_t i = 1; i < t.size(); i++)
    if (t[i] == name) return uint32_t(i);
  t.emplace_back(name);
  return uint32_t(t.size() - 1);
}

const std::string &source_file_name(uint32_t id) {
  auto &t = file_table();
  return id < t.size() ? t[id] : t[0];
}

std::string format_loc(SrcLoc loc) {
  if (!loc.known()) return "";
  return fmt::format("{}:{}:{}", source_file_name(loc.file), loc.line, loc.col);
}

}  // namespace kiln

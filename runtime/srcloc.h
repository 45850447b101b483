// srcloc.h — source file names and the locations kept on pairs.
//
// Invariant: file ids are indices into a table that only grows, so a SrcLoc
// stays valid for the life of the process. Id 0 means "no file".
#pragma once
#include <string>
#include <string_view>

#include "runtime/error.h"
#include "runtime/object.h"

namespace kiln {

uint32_t register_source_file(std::string_view name);
const std::string &source_file_name(uint32_t id);

inline SrcLoc loc_of(Value pair) {
  if (!is_pair(pair)) return {};
  Pair *p = as<Pair>(pair);
  return SrcLoc{p->file, p->h.line, p->h.col};
}
inline void set_loc(Value pair, SrcLoc loc) {
  Pair *p = as<Pair>(pair);
  p->file = loc.file;
  p->h.line = loc.line;
  p->h.col = uint16_t(loc.col > 65535 ? 65535 : loc.col);
}
// "FILE:LINE:COL" (or "" when unknown)
std::string format_loc(SrcLoc loc);

}  // namespace kiln

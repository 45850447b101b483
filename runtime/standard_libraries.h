// standard_libraries.h — export lists of the R7RS-small (scheme ...) libraries.
//
// Invariant: the lists are static text; which of their names exist is decided
// when a library is imported (library.cpp).
#pragma once
#include <string_view>

namespace kiln {

// The space-separated exports of the standard library whose name, written
// without parentheses, is `written_name` ("scheme base"), or nullptr.
const char *standard_library_exports(std::string_view written_name);

}  // namespace kiln

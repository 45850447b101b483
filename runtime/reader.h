// reader.h — the S-expression reader (docs/language.md).
//
// Invariant: every pair the reader builds carries the file, line and column of
// its opening bracket (or of the quote character for 'x), and every read error
// is raised through throw_error_at with the position where it was detected.
#pragma once
#include <string_view>

#include "runtime/object.h"
#include "runtime/port.h"

namespace kiln {

// Reads the data of a source text one at a time, so a program's earlier forms
// run before a read error later in the file is reported.
class SourceReader {
 public:
  SourceReader(std::string_view text, uint32_t file_id);
  ~SourceReader();
  Value next();  // NOVALUE at end of input
  SourceReader(const SourceReader &) = delete;
  SourceReader &operator=(const SourceReader &) = delete;

 private:
  void *impl_;
};

// Reads every datum of `text`; returns them as a list.
Value read_all(std::string_view text, uint32_t file_id);
// Reads one datum from an input port; EOF_V at end of input. Read errors name
// the port (a file port's path, or "<string>") and the line and column in it.
Value read_datum(Port *p);

}  // namespace kiln

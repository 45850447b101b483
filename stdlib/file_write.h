// file_write.h — writing a whole file atomically (save-model, write-csv, save-npy).
//
// Invariant: a reader of PATH sees either the file as it was or the whole new
// file, never a part: the bytes go to a new temporary file beside PATH (its
// name unique to this call, created O_EXCL so a link planted there is never
// followed), are flushed to disk, and the temporary file is renamed over PATH.
// On any failure, an error or a Ctrl-C while writing, the temporary file is
// removed and PATH is left as it was.
#pragma once
#include <cstdio>
#include <functional>
#include <string>

namespace kiln {

// Calls write(f) with the temporary file open for writing; write returns false
// when a write failed (errno says why). Raises "WHO: cannot write PATH: REASON".
void write_file_atomically(const char *who, const std::string &path,
                           const std::function<bool(FILE *)> &write);

}  // namespace kiln

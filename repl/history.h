// history.h — the REPL's persistent history file.
//
// Invariant: one entry per line, so a multi-line entry stays one entry: inside
// an entry a backslash is written as `\\` and a newline as `\n`. Entries are
// appended as they are entered (one write(2) each, O_APPEND), so two sessions
// running at once never overwrite each other and a killed session keeps what
// was typed. Any failure to read or write history is silent: history is a
// convenience and must never stop the REPL.
#pragma once
#include <string>
#include <vector>

namespace kiln {

// KILN_HISTFILE if set and non-empty; else $XDG_STATE_HOME/kiln/history (when
// XDG_STATE_HOME is an absolute path); else $HOME/.local/state/kiln/history.
// Empty when none of these is available.
std::string history_file_path();

std::string encode_history_entry(const std::string &entry);
std::string decode_history_entry(const std::string &line);

// The last `keep` entries of the file (oldest first); rewrites the file with
// only those when it has grown past twice that many (mode 0600, through a
// temporary file with a name of its own, renamed over it).
std::vector<std::string> load_history(const std::string &path, size_t keep);

// Appends one entry, creating the file's directory (mode 0700) as needed.
void append_history(const std::string &path, const std::string &entry);

}  // namespace kiln

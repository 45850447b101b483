// line_editor.h — where the REPL's lines come from.
//
// Invariant: the REPL sees only whole lines (without the newline) and three
// outcomes; whether they come from GNU readline (a terminal, with editing,
// history and completion), a prompting getline loop (a terminal but no
// readline at build time) or a silent getline loop (stdin is not a terminal:
// no prompt, no escape codes) is decided once, here.
#pragma once
#include <memory>
#include <string>

namespace kiln {

enum class ReadResult {
  line,          // *line holds the next line
  end_of_input,  // Ctrl-D on an empty line (the cursor is then on a new line), or end of the piped input
  interrupted,   // Ctrl-C at the prompt: the partial line was thrown away
};

class LineEditor {
 public:
  virtual ~LineEditor() = default;
  virtual ReadResult read_line(const std::string &prompt, std::string *line) = 0;
  // Records a complete entry (possibly several lines) as one history entry.
  virtual void remember(const std::string &entry) = 0;
  virtual bool interactive() const = 0;
};

// interactive: stdin is a terminal. history_path may be empty (no history).
std::unique_ptr<LineEditor> make_line_editor(bool interactive, const std::string &history_path);

// Names the command completer offers after a leading comma (set by commands.cpp).
extern const char *const kReplCommandNames[];

}  // namespace kiln

// The getline-based editors, and the choice between them and readline.
#include "repl/line_editor.h"

#include <cstdio>
#include <iostream>

namespace kiln {

#ifdef KILN_HAVE_READLINE
std::unique_ptr<LineEditor> make_readline_editor(const std::string &history_path);
#endif

namespace {

class GetlineEditor : public LineEditor {
 public:
  explicit GetlineEditor(bool prompting) : prompting_(prompting) {}
  ReadResult read_line(const std::string &prompt, std::string *line) override {
    if (prompting_) {
      std::fputs(prompt.c_str(), stdout);
      std::fflush(stdout);
    }
    if (!std::getline(std::cin, *line)) {
      if (prompting_) std::fputs("\n", stdout);
      return ReadResult::end_of_input;
    }
    return ReadResult::line;
  }
  void remember(const std::string &) override {}
  bool interactive() const override { return prompting_; }

 private:
  bool prompting_;
};

}  // namespace

std::unique_ptr<LineEditor> make_line_editor(bool interactive, const std::string &history_path) {
#ifdef KILN_HAVE_READLINE
  if (interactive) return make_readline_editor(history_path);
#else
  (void)history_path;
#endif
  return std::make_unique<GetlineEditor>(interactive);
}

}  // namespace kiln

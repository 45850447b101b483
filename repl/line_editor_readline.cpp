// The GNU readline editor, driven through readline's callback interface.
//
// Why the callback interface: Ctrl-C at the prompt must throw away the line
// and show a fresh prompt. The handler (interrupt.cpp) only writes to a
// self-pipe, and this loop select()s on stdin and that pipe, so the clean-up
// runs here in normal code rather than inside a signal handler. Readline's own
// signal handlers are off (rl_catch_signals = 0) so that SIGINT always reaches
// ours.
#ifdef KILN_HAVE_READLINE
#include <sys/select.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// readline.h uses FILE without including stdio.h itself.
#include <readline/history.h>
#include <readline/readline.h>

#include "repl/completion.h"
#include "repl/history.h"
#include "repl/interrupt.h"
#include "repl/line_editor.h"
#include "runtime/port.h"

namespace kiln {
namespace {

constexpr size_t kHistoryKept = 1000;

// Readline's callbacks are plain functions, so the state they share is here.
struct PendingLine {
  bool done = false;
  bool eof = false;
  std::string text;
};
PendingLine g_pending;

// Candidates for the completion in progress; the generator walks them.
std::vector<std::string> g_candidates;
size_t g_next_candidate = 0;

void on_line(char *line) {
  // Removing the handler here stops readline from redisplaying the prompt
  // before the entry has been evaluated.
  rl_callback_handler_remove();
  g_pending.done = true;
  if (!line) {
    g_pending.eof = true;
    return;
  }
  g_pending.text = line;
  std::free(line);
}

char *candidate_generator(const char *text, int state) {
  if (state == 0) g_next_candidate = 0;
  size_t len = std::strlen(text);
  while (g_next_candidate < g_candidates.size()) {
    const std::string &c = g_candidates[g_next_candidate++];
    if (c.compare(0, len, text) == 0) return strdup(c.c_str());
  }
  return nullptr;
}

char **complete(const char *text, int start, int) {
  rl_attempted_completion_over = 1;  // never fall back to readline's file names
  switch (completion_kind(rl_line_buffer, size_t(start))) {
  case CompletionKind::none: return nullptr;
  case CompletionKind::file:
    rl_filename_completion_desired = 1;
    return rl_completion_matches(text, rl_filename_completion_function);
  case CompletionKind::command:
    g_candidates.clear();
    for (const char *const *c = kReplCommandNames; *c; c++) g_candidates.emplace_back(*c);
    break;
  case CompletionKind::name: g_candidates = bound_names(); break;
  }
  return rl_completion_matches(text, candidate_generator);
}

class ReadlineEditor : public LineEditor {
 public:
  explicit ReadlineEditor(const std::string &history_path) : history_path_(history_path) {
    rl_readline_name = "kiln";  // for $if kiln in ~/.inputrc
    rl_catch_signals = 0;
    rl_instream = stdin;
    rl_outstream = stdout;
    // Lisp words end at brackets, quotes and whitespace; `-`, `?`, `!` etc. are
    // part of names. A `"` opens a quoted word, so file names inside strings
    // complete from just after the quote and get their closing quote added.
    rl_basic_word_break_characters = const_cast<char *>(" \t\n()[]'`,;\"");
    rl_completer_quote_characters = const_cast<char *>("\"");
    rl_attempted_completion_function = complete;
    set_stdin_reader(read_stdin_interruptibly);
    stifle_history(int(kHistoryKept));
    for (const std::string &entry : load_history(history_path_, kHistoryKept)) add_history(entry.c_str());
  }

  ReadResult read_line(const std::string &prompt, std::string *line) override {
    g_pending = PendingLine{};
    std::fflush(stdout);
    rl_reset_screen_size();  // the window may have been resized while an entry ran
    rl_callback_handler_install(prompt.c_str(), on_line);
    int signal_fd = interrupt_pipe_fd();
    while (!g_pending.done) {
      fd_set readable;
      FD_ZERO(&readable);
      FD_SET(STDIN_FILENO, &readable);
      if (signal_fd >= 0) FD_SET(signal_fd, &readable);
      int n = select(std::max(STDIN_FILENO, signal_fd) + 1, &readable, nullptr, nullptr, nullptr);
      if (n < 0) {
        if (errno == EINTR) continue;  // the collector's stop-the-world signals, SIGWINCH
        rl_callback_handler_remove();
        return ReadResult::end_of_input;
      }
      if (signal_fd >= 0 && FD_ISSET(signal_fd, &readable)) {
        clear_pending_interrupts();
        abandon_line();
        return ReadResult::interrupted;
      }
      if (FD_ISSET(STDIN_FILENO, &readable)) rl_callback_read_char();
    }
    if (g_pending.eof) {
      if (!readline_ended_line()) rl_crlf();
      std::fflush(rl_outstream);
      return ReadResult::end_of_input;
    }
    *line = std::move(g_pending.text);
    return ReadResult::line;
  }

  void remember(const std::string &entry) override {
    const HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : nullptr;
    if (last && entry == last->line) return;  // repeating a line does not grow history
    add_history(entry.c_str());
    append_history(history_path_, entry);
  }

  bool interactive() const override { return true; }

 private:
  // Ctrl-C: leave what was typed visible with ^C after it, as a shell does,
  // and end any incremental search or pending key sequence.
  void abandon_line() {
    rl_point = rl_end;
    rl_redisplay();
    std::fputs("^C", rl_outstream);
    rl_crlf();
    rl_callback_sigcleanup();
    rl_free_line_state();
    rl_replace_line("", 1);
    rl_point = rl_end = 0;
    rl_callback_handler_remove();
    using_history();  // the next Up starts again from the newest entry
  }

  // At end of input, readline 8.1 and later move to a new line themselves
  // when they switch bracketed paste off; before, the cursor stays after the prompt.
  static bool readline_ended_line() {
#if RL_READLINE_VERSION >= 0x0801
    const char *paste = rl_variable_value("enable-bracketed-paste");
    return paste && std::strcmp(paste, "on") == 0;
#else
    return false;
#endif
  }

  std::string history_path_;
};

}  // namespace

std::unique_ptr<LineEditor> make_readline_editor(const std::string &history_path) {
  return std::make_unique<ReadlineEditor>(history_path);
}

}  // namespace kiln
#endif

// runtime.cpp — bringing the evaluator up (no builtins: stdlib/boot.h adds
// them), and running source text.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "runtime/args.h"
#include "runtime/continuation.h"
#include "runtime/eval.h"
#include "runtime/eval_internal.h"
#include "runtime/library.h"
#include "runtime/port.h"
#include "runtime/reader.h"
#include "runtime/srcloc.h"

namespace kiln {

void init_special_forms();

void init_runtime() {
  static bool done = false;
  if (done) return;
  done = true;
  gc_init();
  gc_stop_collections_when(&g_interrupt);
  init_out_of_memory_error();
  init_special_forms();
  init_ports();
}

Value eval_string(std::string_view src, const std::string &name) {
  // The reader and the text are C++ state a continuation copy cannot resume
  // (continuation.h); at the outermost level the prompt starts below this.
  BarrierScope barrier(g_site, "a file being loaded");
  uint32_t file_id = register_source_file(name);
  SourceReader reader(src, file_id);
  Value result = UNSPEC;
  bool declared = false;
  for (;;) {
    Value form = reader.next();
    if (form == NOVALUE) return result;
    // Once the program has imported (an import form above, or a program that
    // loads this file), its definitions of builtins' names get cells of their
    // own: declare them all first, so earlier forms refer to them.
    if (!declared && g_env && g_env == program_env()) {
      declared = true;
      predeclare_program_definitions(src, file_id);
    }
    result = eval_toplevel(form);
  }
}

bool read_file_text(const std::string &path, std::string *out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

Value load_file(const std::string &path) {
  std::string text;
  if (!read_file_text(path, &text)) {
    Value msg = make_string(fmt::format("cannot open file {}", path));
    raise_value(make_error_obj(msg, NIL, intern("file-error")));
  }
  return eval_string(text, path);
}

}  // namespace kiln

// boot.cpp — starting Kiln (see boot.h).
#include "stdlib/boot.h"

#include "runtime/eval.h"
#include "runtime/gc_boot.h"
#include "stdlib/builtins.h"

namespace kiln {

extern const char *const kPreludeSource;   // prelude_embed.cpp, generated from prelude.lisp
extern const char *const kTrainingSource;  // training_embed.cpp, generated from training.lisp
extern const char *const kModelsSource;    // models_embed.cpp, generated from models.lisp
extern const char *const kProgressSource;  // progress_embed.cpp, generated from progress.lisp

void init_kiln() {
  static bool done = false;
  if (done) return;
  done = true;
  init_runtime();
  init_builtins();
  eval_string(kPreludeSource, "<prelude>");
  eval_string(kTrainingSource, "<training>");
  eval_string(kModelsSource, "<models>");
  eval_string(kProgressSource, "<progress>");
  gc_boot_done();
}

}  // namespace kiln

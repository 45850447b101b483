// boot.h — starting Kiln: the runtime, every builtin, then the prelude.
//
// Invariant: init_kiln() runs before any Lisp value is made or evaluated (the
// kiln executable, the unit tests and the benchmarks each call it first); it is
// idempotent.
#pragma once

namespace kiln {

void init_kiln();

}  // namespace kiln

// loop_forms.h — fori-loop, scan and while-loop as Lisp sees them (SPEC §15,
// docs/graph.md "Control flow"): a plain loop when called on concrete values,
// one Loop node (loop.h) when called while a trace is active.
//
// Invariants:
//   * The carry keeps INIT's structure (tree.h) and each leaf its kind (number
//     or tensor) and shape, checked after every step eagerly and once traced,
//     with the same messages.
//   * Traced, the body is called once, on stand-ins: what it computes from them
//     becomes the body graph, what it computes from anything else stays in the
//     enclosing graph (computed once, before the loop) and enters the body as a
//     captured value.
#pragma once
#include "runtime/value.h"

namespace kiln {

// (fori-loop N BODY INIT)
Value fori_loop(Value n, Value body, Value init);
// (scan F INIT XS) -> (FINAL-CARRY . YS)
Value scan_loop(Value f, Value init, Value xs);
// (while-loop COND BODY INIT)
Value while_loop(Value cond, Value body, Value init);

}  // namespace kiln

// global_reads.h — which top-level variables a trace read, so that a `jit` kernel
// built from the trace can tell when one of them now holds another value and must
// be traced again (SPEC §15, docs/jit.md#captured-variables).
//
// Invariant: g_global_epoch changes whenever a top-level variable is assigned by
// set! or define (runtime/nodes.h), so an unchanged epoch means every variable still
// holds what it held when it was last compared; g_global_reads is non-null exactly
// while a jit trace runs (it is installed and removed by GlobalReadRecorder), and
// every read of a top-level variable's value by the evaluator is noted in it then.
#pragma once
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "runtime/object.h"

namespace kiln {

extern uint64_t g_global_epoch;

// The symbols (global cells) read while a trace runs, each once, in first-read order.
struct GlobalReadLog {
  std::vector<Symbol *> order;  // symbols are uncollectable (object.h): safe off the GC heap
  std::unordered_set<Symbol *> seen;
};
extern GlobalReadLog *g_global_reads;

// Out of line: reached only while a trace records.
void note_global_read(Symbol *s);

// Records the reads made during its lifetime; restores the enclosing recorder (if
// any) afterwards and passes the reads on to it, so a trace inside a trace still
// makes the outer one depend on what the inner one read.
class GlobalReadRecorder {
 public:
  GlobalReadRecorder();
  ~GlobalReadRecorder();
  GlobalReadRecorder(const GlobalReadRecorder &) = delete;
  GlobalReadRecorder &operator=(const GlobalReadRecorder &) = delete;
  // The variables read so far and their values now: a GC vector of symbol, value
  // pairs laid flat, or NIL when none was read. Taken after the trace ends, so a
  // variable the traced code itself assigned (a trace counter) compares equal later.
  Value snapshot() const;

 private:
  GlobalReadLog log_;
  GlobalReadLog *outer_;
};

// Whether every variable of a snapshot still holds an eqv? value (numbers by
// value, tensors and procedures by identity). A variable set! back to an eqv?
// value counts as unchanged, and its snapshot entry takes the new object so the
// next comparison is a word compare.
bool globals_unchanged(Value snapshot);

}  // namespace kiln

// list_builder.h — building a Lisp list front to back in O(1) per element.
//
// Invariant: a ListBuilder lives on the C++ stack, which the collector scans
// conservatively, so `head` keeps every cell pushed so far alive; the cells
// themselves are GC memory. It is the one list builder of every layer (reader,
// quasiquote, trees, the list builtins).
// A builder in a frame that a continuation resumes a second time (map calling
// Lisp without a barrier) copies the cells it holds before extending them when
// a re-entry has happened since it last pushed (g_reentry_epoch), so a list an
// earlier return handed out is never extended.
#pragma once
#include "runtime/continuation.h"
#include "runtime/eval.h"
#include "runtime/object.h"

namespace kiln {

struct ListBuilder {
  Value head = NIL;
  Value tail = NIL;  // the last cell, NIL while empty
  uint64_t epoch = g_reentry_epoch;
  // Appends x. Polls for Ctrl-C: builders run as long as their input or a count.
  void push(Value x) { push_cell(cons(x, NIL)); }
  // Appends a cell made by the caller (the reader's cells carry source places).
  void push_cell(Value cell) {
    check_interrupt();
    if (epoch != g_reentry_epoch) unshare();
    if (tail == NIL) head = cell;
    else as<Pair>(tail)->cdr = cell;
    tail = cell;
  }
  // The list with `rest` as the last cell's cdr (a dotted tail, or a list to share).
  Value finish(Value rest) {
    if (epoch != g_reentry_epoch) unshare();
    if (tail == NIL) return rest;
    as<Pair>(tail)->cdr = rest;
    return head;
  }
  // The list built so far. Read it through here, not `head`, in a frame a
  // re-entry may resume: head's cells may have been extended by an earlier run.
  Value list() {
    if (epoch != g_reentry_epoch) unshare();
    return head;
  }
  // Fresh copies of the cells head..tail (the cdr past tail is not followed:
  // an earlier run may have extended it).
  void unshare() {
    epoch = g_reentry_epoch;
    if (tail == NIL) return;
    Value old = head, h = NIL, t = NIL;
    for (;;) {
      Value cell = cons(car(old), NIL);
      if (t == NIL) h = cell;
      else as<Pair>(t)->cdr = cell;
      t = cell;
      if (old == tail) break;
      old = cdr(old);
    }
    head = h;
    tail = t;
  }
};

}  // namespace kiln

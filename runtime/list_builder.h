// list_builder.h — building a Lisp list front to back in O(1) per element.
//
// Invariant: a ListBuilder lives on the C++ stack, which the collector scans
// conservatively, so `head` keeps every cell pushed so far alive; the cells
// themselves are GC memory. It is the one list builder of every layer (reader,
// quasiquote, trees, the list builtins).
#pragma once
#include "eval.h"
#include "object.h"

namespace kiln {

struct ListBuilder {
  Value head = NIL;
  Value tail = NIL;  // the last cell, NIL while empty
  // Appends x. Polls for Ctrl-C: builders run as long as their input or a count.
  void push(Value x) { push_cell(cons(x, NIL)); }
  // Appends a cell made by the caller (the reader's cells carry source places).
  void push_cell(Value cell) {
    check_interrupt();
    if (tail == NIL) head = cell;
    else as<Pair>(tail)->cdr = cell;
    tail = cell;
  }
  // The list with `rest` as the last cell's cdr (a dotted tail, or a list to share).
  Value finish(Value rest) {
    if (tail == NIL) return rest;
    as<Pair>(tail)->cdr = rest;
    return head;
  }
};

}  // namespace kiln

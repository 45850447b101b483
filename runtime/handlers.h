// handlers.h — the dynamic stack of exception handlers.
//
// Invariant: g_handlers is a GC-rooted Lisp list whose head is the current
// handler: a procedure (with-exception-handler) or a guard marker (any
// non-procedure), and every change to it is undone by a HandlerScope on the C++
// stack, so unwinding through a C++ exception always restores it.
#pragma once
#include "runtime/object.h"

namespace kiln {

extern Value g_handlers;

inline Value current_handler() { return is_pair(g_handlers) ? car(g_handlers) : NOVALUE; }
inline Value handler_rest() { return is_pair(g_handlers) ? cdr(g_handlers) : NIL; }
inline Value list_of_one(Value v) { return cons(v, NIL); }

class HandlerScope {
 public:
  explicit HandlerScope(Value new_stack) : saved_(g_handlers) { g_handlers = new_stack; }
  ~HandlerScope() { g_handlers = saved_; }
  HandlerScope(const HandlerScope &) = delete;
  HandlerScope &operator=(const HandlerScope &) = delete;

 private:
  Value saved_;  // on the C++ stack, which the collector scans
};

}  // namespace kiln

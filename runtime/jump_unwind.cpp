// jump_unwind.cpp — see jump_unwind.h for why and when an exception jumps.
#include "runtime/jump_unwind.h"

#include <exception>

#include "runtime/continuation.h"
#include "runtime/handlers.h"
#include "runtime/library.h"
#include "runtime/port.h"

namespace kiln {

JumpPoint *g_jump_top = nullptr;
// The exception on its way to a point, between jump_to_point and the landing.
static std::exception_ptr g_jumping;

Value run_at_jump_point(Value (*body)(void *), void *arg) {
  JumpPoint p;
  p.prev = g_jump_top;
  p.barrier = g_barrier;
  p.handlers = g_handlers;
  p.in_port = current_input_port();
  p.out_port = current_output_port();
  p.callcc = g_callcc_top;
  p.env = g_env;
  // Pops the point however this frame ends: a return, or the rethrow below
  // unwinding it (a jump landing here has left g_jump_top at this point).
  struct Pop {
    JumpPoint *p;
    ~Pop() { g_jump_top = p->prev; }
  } pop{&p};
  if (setjmp(p.regs)) {
    // Landed: what the skipped frames' destructors would have restored.
    g_jump_top = &p;
    g_handlers = p.handlers;
    set_current_input_port(p.in_port);
    set_current_output_port(p.out_port);
    g_callcc_top = p.callcc;
    g_env = p.env;
    std::exception_ptr e = g_jumping;
    g_jumping = nullptr;
    std::rethrow_exception(e);
  }
  g_jump_top = &p;
  return body(arg);
}

bool can_jump_to_point() { return g_jump_top && g_jump_top->barrier == g_barrier; }

void keep_exception_for_jump() { g_jumping = std::current_exception(); }

void jump_to_point() { longjmp(g_jump_top->regs, 1); }

}  // namespace kiln

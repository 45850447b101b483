#include "runtime/error.h"

#include <cstdio>
#include <cstdlib>
#include <new>

#include "runtime/continuation.h"
#include "runtime/eval.h"
#include "runtime/eval_internal.h"
#include "runtime/gc.h"
#include "runtime/handlers.h"
#include "runtime/object.h"
#include "runtime/printer.h"

namespace kiln {

Value g_raised = NOVALUE;
Value g_escape_values = NOVALUE;
Value g_handlers = NIL;

std::string error_value_string(Value v, size_t max_chars) {
  std::string s;
  print_value_capped(s, v, true, max_chars);
  return s;
}

// A type error is one line: its value is cut much shorter than other messages'
// (80 characters at most, `...` included).
static std::string short_write(Value v) {
  std::string s = error_value_string(v, 80);
  if (s.size() > 80) s = error_value_string(v, 77);
  return s;
}

[[noreturn]] static void throw_raised(Value obj, SrcLoc loc) {
  g_raised = obj;
  LispError e;
  e.loc = loc.known() ? loc : current_site_loc();
  e.pending = e.loc;
  throw e;
}

static thread_local Unwinding *t_newest_unwinding = nullptr;

Unwinding::Unwinding(bool is_error) : older_(t_newest_unwinding), is_error_(is_error) {
  t_newest_unwinding = this;
}

Unwinding::~Unwinding() {
  for (Unwinding **p = &t_newest_unwinding; *p; p = &(*p)->older_)
    if (*p == this) {
      *p = older_;
      return;
    }
}

LispError *lisp_error_being_unwound() {
  Unwinding *u = t_newest_unwinding;
  return u && u->is_error_ ? static_cast<LispError *>(u) : nullptr;
}

// The error raised when even the out-of-memory error cannot be allocated:
// made at start-up (init_out_of_memory_error), a root in this file's data.
static Value g_out_of_memory = NOVALUE;

void init_out_of_memory_error() {
  g_out_of_memory = make_error_obj(make_string("out of memory"), NIL, intern("error"));
}

void gc_out_of_memory(size_t bytes) {
  static bool raising = false;
  if (raising || g_out_of_memory == NOVALUE) {
    if (g_out_of_memory == NOVALUE) {
      std::fprintf(stderr, "kiln: out of memory while starting\n");
      std::exit(70);
    }
    throw_raised(g_out_of_memory, {});
  }
  raising = true;
  struct Reset {
    ~Reset() { raising = false; }
  } reset;
  std::string msg;
  try {
    msg = fmt::format("out of memory: cannot allocate {} bytes", bytes);
  } catch (const std::bad_alloc &) {
    // malloc is out too: the message made at start-up needs no memory.
    throw_raised(g_out_of_memory, {});
  }
  throw_error(msg);
}

void gc_out_of_memory_for(uint64_t count, size_t size, size_t header) {
  unsigned __int128 bytes = static_cast<unsigned __int128>(count) * size + header;
  std::string digits;
  do {
    digits.insert(digits.begin(), char('0' + int(bytes % 10)));
    bytes /= 10;
  } while (bytes != 0);
  throw_errorf("out of memory: cannot allocate {} bytes", digits);
}

// R7RS: the current handler runs in the dynamic context of the raise, with the
// handler stack minus itself. A guard's marker (not a procedure) means "unwind
// to the guard": that is what the C++ throw does. A raise from C++ code (a
// builtin's error) may have C++ state on the stack above the handler, so the
// handler runs under a reentry barrier (continuation.h); the raise builtins'
// own frames hold none.
static Value call_handler(Value h, Value obj, bool from_lisp) {
  if (from_lisp) return call_procedure(h, 1, &obj);
  BarrierScope barrier(g_site, "an exception handler for an error in ");
  return call_procedure(h, 1, &obj);
}

[[noreturn]] static void raise_value_from(Value obj, bool from_lisp) {
  Value h = current_handler();
  if (is_procedure(h)) {
    HandlerScope outer(handler_rest());
    call_handler(h, obj, from_lisp);
    // A handler returning from a non-continuable raise is itself an error,
    // raised (R7RS) in the handler's dynamic environment: `outer` is still in
    // force, so the next handler out sees it.
    Value msg = make_string("handler returned from non-continuable raise");
    raise_value_from(make_error_obj(msg, list_of_one(obj), intern("error")), from_lisp);
  }
  throw_raised(obj, {});
}

void raise_value(Value obj) { raise_value_from(obj, false); }
void raise_from_lisp(Value obj) { raise_value_from(obj, true); }

static Value raise_continuable_from(Value obj, bool from_lisp) {
  Value h = current_handler();
  if (is_procedure(h)) {
    HandlerScope outer(handler_rest());
    return call_handler(h, obj, from_lisp);
  }
  throw_raised(obj, {});
}

Value raise_continuable(Value obj) { return raise_continuable_from(obj, false); }
Value raise_continuable_from_lisp(Value obj) { return raise_continuable_from(obj, true); }

void throw_error(std::string_view msg) {
  raise_value(make_error_obj(make_string(msg), NIL, intern("error")));
}

void throw_error_at(SrcLoc loc, std::string_view msg, Value irritants) {
  Value obj = make_error_obj(make_string(msg), irritants, intern("read-error"));
  Value h = current_handler();
  if (is_procedure(h)) raise_value(obj);
  throw_raised(obj, loc);
}

void type_error(std::string_view who, int pos, std::string_view expected, Value got) {
  // Every check written as "a number" predates complex numbers and tests for a
  // real one (object.h's is_number), so a complex argument hears what it lacks.
  if (is_compnum(got) && expected.starts_with("a number"))
    throw_errorf("{}: argument {} must be a real{}, got {}", who, pos, expected.substr(1), short_write(got));
  throw_errorf("{}: argument {} must be {}, got {}", who, pos, expected, short_write(got));
}

void range_error(std::string_view who, int64_t index, std::string_view kind, int64_t len) {
  throw_errorf("{}: index {} out of range for a {} of length {}", who, index, kind, len);
}

void arity_error(std::string_view who, int min, int max, int got) {
  std::string want;
  if (max == min) want = fmt::format("{} argument{}", min, min == 1 ? "" : "s");
  else if (max < 0) want = fmt::format("at least {} argument{}", min, min == 1 ? "" : "s");
  else want = fmt::format("{} to {} arguments", min, max);
  throw_errorf("{}: expected {}, got {}", who, want, got);
}

std::string error_message_of(Value raised) {
  if (is_error_obj(raised)) {
    ErrorObj *e = as<ErrorObj>(raised);
    std::string s;
    if (is_string(e->message)) s = string_view_of(e->message);
    else print_value_capped(s, e->message, false, kErrorValueChars);
    for (Value p = e->irritants; is_pair(p); p = cdr(p)) {
      s += ' ';
      s += error_value_string(car(p));
    }
    return s;
  }
  return "uncaught exception: " + error_value_string(raised);
}

}  // namespace kiln

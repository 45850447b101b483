// control.cpp — control builtins: values, continuations, dynamic-wind, errors,
// handlers, parameters, promises, case-lambda, eval, load, exit.
#include <array>
#include <cstdlib>
#include <exception>

#include "runtime/continuation.h"
#include "runtime/eval.h"
#include "runtime/eval_internal.h"
#include "runtime/handlers.h"
#include "runtime/jump_unwind.h"
#include "runtime/library.h"
#include "runtime/printer.h"
#include "stdlib/builtins.h"

namespace kiln {

Value g_command_line = NIL;

static Value b_values(int argc, Value *argv) { return make_values(argc, argv); }

static Value b_call_with_values(int, Value *argv) {
  Value v = call_procedure(arg_proc("call-with-values", 1, argv[0]), 0, nullptr);
  arg_proc("call-with-values", 2, argv[1]);
  // The consumer is called in tail position (R7RS).
  if (is_values(v)) {
    MultipleValues *mv = as<MultipleValues>(v);
    return tail_call_to(argv[1], int(mv->n), mv->items);
  }
  return tail_call_to(argv[1], 1, &v);
}

static Value b_call_cc(int, Value *argv) {
  return call_with_current_continuation(arg_proc("call/cc", 1, argv[0]), false);
}

static Value b_call_ec(int, Value *argv) {
  return call_with_current_continuation(arg_proc("call-with-escape-continuation", 1, argv[0]), true);
}

// Runs BODY with ENTRY pushed on the wind list (continuation.h); `leave`
// undoes the entry on a normal exit or an error. An escape or re-entry has
// already left the entry (wind_to) before its throw reaches here. The error
// path holds the caught exception while `leave` may run Lisp code: a barrier.
template <class Leave> static Value with_wind_entry(Value entry, Value body, Leave &&leave) {
  Value outer = g_winders;
  g_winders = cons(entry, outer);
  Value r;
  std::exception_ptr failed;
  try {
    // A jump point: an error or Ctrl-C from deep below comes here by a jump
    // (jump_unwind.h), rethrown inside this try.
    r = run_at_jump_point([](void *b) { return call_procedure(*static_cast<Value *>(b), 0, nullptr); },
                          &body);
  } catch (ContinuationThrow &) {
    g_winders = outer;
    throw;
  } catch (ReentryThrow &) {
    g_winders = outer;
    throw;
  } catch (...) {
    failed = std::current_exception();
  }
  g_winders = outer;
  if (failed) {
    {
      BarrierScope barrier(g_site, "a dynamic-wind after-thunk run for an error");
      leave();
    }
    std::rethrow_exception(failed);
  }
  leave();
  return r;
}

static Value b_dynamic_wind(int, Value *argv) {
  for (int i = 0; i < 3; i++) arg_proc("dynamic-wind", i + 1, argv[i]);
  Value before = argv[0], thunk = argv[1], after = argv[2];
  call_procedure(before, 0, nullptr);
  return with_wind_entry(cons(before, after), thunk, [&] { call_procedure(after, 0, nullptr); });
}

static Value b_error(int argc, Value *argv) {
  Value msg = argv[0];
  // Capped, as every value in an error text: a message may be a huge or endlessly
  // shared structure (a 2^60-leaf DAG printed for 20 s before the cap).
  if (!is_string(msg)) msg = make_string(error_value_string(msg));
  raise_from_lisp(make_error_obj(msg, list_from(argv + 1, argc - 1), intern("error")));
}

static Value b_raise(int, Value *argv) { raise_from_lisp(argv[0]); }
static Value b_raise_continuable(int, Value *argv) { return raise_continuable_from_lisp(argv[0]); }

static Value b_with_exception_handler(int, Value *argv) {
  arg_proc("with-exception-handler", 1, argv[0]);
  arg_proc("with-exception-handler", 2, argv[1]);
  HandlerScope scope(cons(argv[0], g_handlers));
  return call_procedure(argv[1], 0, nullptr);
}

static ErrorObj *arg_error(const char *who, Value v) {
  if (!is_error_obj(v)) type_error(who, 1, "an error object", v);
  return as<ErrorObj>(v);
}

static Value b_error_object_p(int, Value *argv) { return boolv(is_error_obj(argv[0])); }
static Value b_error_object_message(int, Value *argv) {
  return arg_error("error-object-message", argv[0])->message;
}
static Value b_error_object_irritants(int, Value *argv) {
  return arg_error("error-object-irritants", argv[0])->irritants;
}
static Value b_file_error_p(int, Value *argv) {
  return boolv(is_error_obj(argv[0]) && as<ErrorObj>(argv[0])->kind == intern("file-error"));
}
static Value b_read_error_p(int, Value *argv) {
  return boolv(is_error_obj(argv[0]) && as<ErrorObj>(argv[0])->kind == intern("read-error"));
}
static Value b_condition_report(int, Value *argv) { return make_string(error_message_of(argv[0])); }

// R7RS: no argument or #t is success, #f failure, an integer the status itself.
static int exit_status(int argc, Value *argv) {
  if (argc == 0) return 0;
  if (argv[0] == FALSE_V) return 1;
  if (is_int(argv[0])) return int(int_of(argv[0]) & 0xff);
  return 0;
}

static Value b_exit(int argc, Value *argv) { throw ExitThrow{exit_status(argc, argv)}; }

static Value b_emergency_exit(int argc, Value *argv) {
  std::fflush(stdout);
  std::_Exit(exit_status(argc, argv));
}

// An environment object names a top-level environment (runtime/library.h):
// that of (environment SET...), or the program's for the others.
struct EnvironmentObj {
  ObjHeader h;
  TopEnv *env;      // null: the program's, whatever it is when eval runs
  bool is_program;  // interaction-environment and the R5RS ones
};

static Value make_environment_obj(TopEnv *env, bool is_program, bool root) {
  size_t n = sizeof(EnvironmentObj);
  auto *e = static_cast<EnvironmentObj *>(root ? gc_alloc_root(n) : gc_alloc(n));
  e->h = ObjHeader{T_ENVIRONMENT, 0, 0, 0};
  e->env = env;
  e->is_program = is_program;
  return from_ptr(&e->h);
}

// Analysed and run in ENV's environment; without ENV, in the one being
// analysed now (a library's body, or the program).
static Value b_eval(int argc, Value *argv) {
  if (argc < 2) return eval_toplevel(argv[0]);
  if (!has_type(argv[1], T_ENVIRONMENT)) type_error("eval", 2, "an environment", argv[1]);
  auto *e = reinterpret_cast<EnvironmentObj *>(hdr(argv[1]));
  TopEnv *saved = g_env;
  g_env = e->is_program ? program_env() : e->env;
  try {
    Value r = eval_toplevel(argv[0]);
    // An import the form made may have created the program's environment.
    if (e->is_program && !saved) saved = program_env();
    g_env = saved;
    return r;
  } catch (...) {
    if (e->is_program && !saved) saved = program_env();
    g_env = saved;
    throw;
  }
}

static Value b_interaction_environment(int, Value *) {
  static Value env = NOVALUE;
  if (env == NOVALUE) env = make_environment_obj(nullptr, true, true);
  return env;
}

static Value b_environment(int argc, Value *argv) {
  Value specs = NIL;
  for (int i = argc - 1; i >= 0; i--) specs = cons(argv[i], specs);
  return make_environment_obj(make_import_environment(specs), false, false);
}

static Value b_load(int, Value *argv) { return load_file(arg_path("load", 1, argv[0])); }

static Value b_void(int, Value *) { return UNSPEC; }

static Value b_make_parameter(int argc, Value *argv) {
  Parameter *p = alloc_obj<Parameter>(T_PARAMETER);
  p->converter = argc > 1 ? arg_proc("make-parameter", 2, argv[1]) : FALSE_V;
  p->value = argc > 1 ? apply_proc(argv[1], 1, argv) : argv[0];
  return from_ptr(p);
}

// (%parameterize (list param...) (list value...) thunk)
// The helper parameterize expands to; reachable by name, so it checks what the
// expansion always gives it: equally long lists of parameters and values, a thunk.
// The bindings are a wind entry (#f . ((param . value) ...)): entering and
// leaving both swap each parameter's value with the one stored in the entry,
// so re-entering a continuation captured inside restores the inner values.
static Value b_parameterize(int, Value *argv) {
  int64_t n = list_length(argv[0]);
  if (n < 0) type_error("parameterize", 1, "a list of parameters", argv[0]);
  if (list_length(argv[1]) != n)
    type_error("parameterize", 2, "a list of values, one per parameter", argv[1]);
  arg_proc("parameterize", 3, argv[2]);
  Value swaps = NIL;
  Value ps = argv[0], vs = argv[1];
  for (int64_t i = 0; i < n; i++, ps = cdr(ps), vs = cdr(vs)) {
    Value p = car(ps);
    if (!has_type(p, T_PARAMETER)) type_error("parameterize", int(i + 1), "a parameter", p);
    Parameter *param = as<Parameter>(p);
    Value v = car(vs);
    if (param->converter != FALSE_V) v = call_procedure(param->converter, 1, &v);
    swaps = cons(cons(p, v), swaps);
  }
  auto swap = [swaps] { swap_parameters(swaps); };
  swap();
  return with_wind_entry(cons(FALSE_V, swaps), argv[2], swap);
}

// done: TRUE_V with the value, or FALSE_V with the thunk that computes it.
static Value new_promise(Value done, Value value_or_thunk) {
  Promise *p = alloc_obj<Promise>(T_PROMISE);
  p->done = done;
  p->value = value_or_thunk;
  return from_ptr(p);
}

// Always wraps, even a promise: what `delay` needs (R7RS 7.3).
static Value b_make_value_promise(int, Value *argv) { return new_promise(TRUE_V, argv[0]); }

static Value b_make_promise(int, Value *argv) {
  return has_type(argv[0], T_PROMISE) ? argv[0] : new_promise(TRUE_V, argv[0]);
}

static Value b_make_lazy(int, Value *argv) { return new_promise(FALSE_V, argv[0]); }

// R7RS force with delay-force chains handled iteratively.
static Value b_force(int, Value *argv) {
  Value v = argv[0];
  if (!has_type(v, T_PROMISE)) return v;
  Promise *p = as<Promise>(v);
  while (p->done != TRUE_V) {
    Value r = call_procedure(p->value, 0, nullptr);
    if (p->done == TRUE_V) break;
    if (has_type(r, T_PROMISE)) {
      Promise *q = as<Promise>(r);
      p->done = q->done;
      p->value = q->value;
    } else {
      p->done = TRUE_V;
      p->value = r;
    }
  }
  return p->value;
}

static Value b_promise_p(int, Value *argv) { return boolv(has_type(argv[0], T_PROMISE)); }

static Value b_case_lambda(int argc, Value *argv) {
  Value next = NOVALUE;
  for (int i = argc - 1; i >= 0; i--) {
    if (!is_closure(argv[i])) type_error("case-lambda", i + 1, "a lambda", argv[i]);
    Closure *c = alloc_obj<Closure>(T_CLOSURE);
    *c = *as<Closure>(argv[i]);
    c->next_case = next;
    next = from_ptr(c);
  }
  return next;
}

static Value b_command_line(int, Value *) { return g_command_line; }

static Value b_macroexpand(int, Value *argv) { return macroexpand(argv[0]); }

static BuiltinRegistrar control_registrar([] {
  defbuiltin("values", 0, -1, b_values, "Returns its arguments as multiple values.");
  defbuiltin("call-with-values", 2, 2, b_call_with_values);
  defbuiltin("call/cc", 1, 1, b_call_cc,
             "Calls F with the current continuation, a procedure that may be called any number of times.");
  defbuiltin("call-with-current-continuation", 1, 1, b_call_cc);
  defbuiltin("call-with-escape-continuation", 1, 1, b_call_ec,
             "Calls F with a continuation usable only while the call is running (never copies the stack).");
  defbuiltin("call/ec", 1, 1, b_call_ec);
  defbuiltin("dynamic-wind", 3, 3, b_dynamic_wind);
  defbuiltin("error", 1, -1, b_error, "(error MESSAGE IRRITANT...) raises an error object.");
  defbuiltin("raise", 1, 1, b_raise);
  defbuiltin("raise-continuable", 1, 1, b_raise_continuable);
  defbuiltin("with-exception-handler", 2, 2, b_with_exception_handler);
  defbuiltin("error-object?", 1, 1, b_error_object_p);
  defbuiltin("error?", 1, 1, b_error_object_p);
  defbuiltin("error-object-message", 1, 1, b_error_object_message);
  defbuiltin("error-object-irritants", 1, 1, b_error_object_irritants);
  defbuiltin("file-error?", 1, 1, b_file_error_p);
  defbuiltin("read-error?", 1, 1, b_read_error_p);
  defbuiltin("condition/report-string", 1, 1, b_condition_report);
  defbuiltin("error-message-string", 1, 1, b_condition_report);
  defbuiltin("exit", 0, 1, b_exit);
  defbuiltin("emergency-exit", 0, 1, b_emergency_exit);
  defbuiltin("eval", 1, 2, b_eval);
  defbuiltin("interaction-environment", 0, 0, b_interaction_environment);
  defbuiltin("system-global-environment", 0, 0, b_interaction_environment);
  defbuiltin("scheme-report-environment", 0, 1, b_interaction_environment);
  defbuiltin("null-environment", 0, 1, b_interaction_environment);
  defbuiltin("environment", 0, -1, b_environment);
  defbuiltin("load", 1, 2, b_load);
  defbuiltin("void", 0, -1, b_void);
  defbuiltin("make-parameter", 1, 2, b_make_parameter);
  defbuiltin("%parameterize", 3, 3, b_parameterize);
  defbuiltin("make-promise", 1, 1, b_make_promise);
  defbuiltin("%make-lazy", 1, 1, b_make_lazy);
  defbuiltin("%make-value-promise", 1, 1, b_make_value_promise);
  defbuiltin("force", 1, 1, b_force);
  defbuiltin("promise?", 1, 1, b_promise_p);
  defbuiltin("%case-lambda", 1, -1, b_case_lambda);
  defbuiltin("command-line", 0, 0, b_command_line);
  defbuiltin("macroexpand", 1, 1, b_macroexpand);
});

}  // namespace kiln

namespace kiln {

static Value b_write_to_string(int, Value *argv) {
  std::string s;
  print_value_interruptible(s, argv[0], true);
  return make_string(s);
}

static Value b_report_time(int, Value *argv) {
  double micros = arg_num("time", 1, argv[0]);  // reachable by name: any number
  std::fflush(stdout);
  std::fprintf(stderr, ";; time: %.3f ms\n", micros / 1000.0);
  return UNSPEC;
}

// cond-expand (prelude.lisp) asks at expansion time; runtime/library.cpp knows
// the features and which libraries exist.
static Value b_feature_match(int, Value *argv) { return boolv(feature_requirement_holds(argv[0])); }

static Value b_features(int, Value *) { return feature_list(); }

static BuiltinRegistrar control_internals_registrar([] {
  defbuiltin("%write-to-string", 1, 1, b_write_to_string);
  defbuiltin("%report-time", 1, 1, b_report_time);
  defbuiltin("%feature-match?", 1, 1, b_feature_match);
  defbuiltin("features", 0, 0, b_features);
});

}  // namespace kiln

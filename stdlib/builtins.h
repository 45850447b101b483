// builtins.h — how builtins are defined and how they check their arguments.
//
// Invariant: a builtin is called only with argc inside [min_args, max_args]
// (the evaluator checks the count and raises arity_error before the call), so a
// builtin only checks types and ranges, always through the arg_* helpers below,
// which raise the SPEC §6 message naming the builtin and the 1-based position.
//
// Each stdlib/*.cpp file registers its family with a file-scope
//   static BuiltinRegistrar reg([] { defbuiltin(...); ... });
// The registrars run inside init_builtins(), after gc_init(), in link order.
#pragma once
#include <string_view>

#include "../runtime/error.h"
#include "../runtime/object.h"

namespace kiln {

// Binds NAME globally to a builtin. max = -1 for variadic.
Value defbuiltin(const char *name, int min, int max, BuiltinFn fn, const char *doc = nullptr);
// A builtin bound to no name, for expansions that hold it as a quoted constant
// (define-record-type's primitives); NAME is what it prints and reports as.
Value make_builtin(const char *name, int min, int max, BuiltinFn fn);
// Binds NAME globally to any value (constants, procedures defined in C++).
void defglobal(const char *name, Value v);

struct BuiltinRegistrar {
  explicit BuiltinRegistrar(void (*fn)());
};
void init_builtins();  // runs every registrar once

// Argument checkers: return the converted value or raise
// "WHO: argument POS must be WHAT, got V".
int64_t arg_int(const char *who, int pos, Value v);
int64_t arg_index(const char *who, int pos, Value v);  // non-negative integer
double arg_num(const char *who, int pos, Value v);     // integer or float, as double
String *arg_string(const char *who, int pos, Value v);
Value arg_symbol(const char *who, int pos, Value v);
uint32_t arg_char(const char *who, int pos, Value v);
Pair *arg_pair(const char *who, int pos, Value v);
Vector *arg_vector(const char *who, int pos, Value v);
Value arg_list(const char *who, int pos, Value v);  // proper list
Value arg_proc(const char *who, int pos, Value v);
int64_t list_length(Value v);  // -1 if not a proper list

// Set by the tensor and graph modules: numeric builtins (+ - * / < > = <= >=
// max min abs sqrt exp log sin cos tan expt square ...) call it when any argument is a
// tensor (T_TENSOR) or a traced value (T_SYMBOLIC) instead of raising a type
// error. `op` is the builtin's name. Returns NOVALUE when it does not handle the
// combination, and the builtin then raises its usual type error.
extern Value (*g_generic_arith)(const char *op, int argc, Value *argv);
// The tensor module's g_generic_arith forwards any call with a T_SYMBOLIC
// operand here (same contract: NOVALUE = not handled). Null until the graph
// module sets it. Defined in stdlib/tensors.cpp.
extern Value (*g_symbolic_arith)(const char *op, int argc, Value *argv);
inline bool is_generic_operand(Value v) {
  return is_ptr(v) && (hdr(v)->type == T_TENSOR || hdr(v)->type == T_SYMBOLIC);
}

// Convenience list builders.
Value list_from(const Value *items, int64_t n);
Value list1(Value a);
Value list2(Value a, Value b);
Value list3(Value a, Value b, Value c);

}  // namespace kiln

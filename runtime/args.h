// args.h — defining builtins and checking their arguments: the auxiliary tier
// every layer above the evaluator uses (as Lua's lauxlib).
//
// Invariant: a builtin is called only with argc inside [min_args, max_args]
// (the evaluator checks the count and raises arity_error before the call), so a
// builtin only checks types and ranges, always through the arg_* helpers below,
// which raise the one message shape "WHO: argument POS must be WHAT, got V"
// naming the builtin and the 1-based position.
#pragma once
#include "runtime/error.h"
#include "runtime/object.h"

namespace kiln {

// Binds NAME globally to a builtin. max = -1 for variadic.
Value defbuiltin(const char *name, int min, int max, BuiltinFn fn, const char *doc = nullptr);
// The builtin that stands for an op or composite (runtime/op_table.h), bound to
// the name the table gives it.
Value defbuiltin(BuiltinOp op, int min, int max, BuiltinFn fn, const char *doc = nullptr);
// A builtin bound to no name, for expansions that hold it as a quoted constant
// (define-record-type's primitives); NAME is what it prints and reports as.
Value make_builtin(const char *name, int min, int max, BuiltinFn fn);
// Binds NAME globally to any value (constants, procedures defined in C++).
void defglobal(const char *name, Value v);

// Argument checkers: return the converted value or raise
// "WHO: argument POS must be WHAT, got V".
int64_t arg_int(const char *who, int pos, Value v);
int64_t arg_index(const char *who, int pos, Value v);  // non-negative integer
// Optional [start [end]] arguments at argv positions first and first + 1 over a
// KIND ("vector", "string", ...) of len items; defaults 0 and len. Out of range:
// range_error; start > end: "WHO: start index S is greater than end index E".
struct Span {
  int64_t start, end;
};
Span optional_span(const char *who, int argc, Value *argv, int first, int64_t len, const char *kind);
double arg_num(const char *who, int pos, Value v);  // integer or float, as double
String *arg_string(const char *who, int pos, Value v);
// A string naming a file, as a std::string: one holding a NUL is refused, since
// the system calls would stop at the NUL and use some other file.
std::string arg_path(const char *who, int pos, Value v);
Value arg_symbol(const char *who, int pos, Value v);
uint32_t arg_char(const char *who, int pos, Value v);
Pair *arg_pair(const char *who, int pos, Value v);
Vector *arg_vector(const char *who, int pos, Value v);
Value arg_list(const char *who, int pos, Value v);  // proper list
Value arg_proc(const char *who, int pos, Value v);
// The length of a proper list; -1 for an improper or circular one (code a
// program builds and passes to eval can be circular: bad syntax, not a hang).
int64_t list_length(Value v);
// The length of a proper list, or the type error naming WHO and POS (a circular
// list is called one rather than printed).
int64_t arg_list_length(const char *who, int pos, Value v);

// For builtins that take values of foreign types (the tensor builtins, given
// symbolic values): the `call` hook's result for the first argument whose type has
// one, or NOVALUE when none has. The _in_list form looks at the elements of
// `list` (a proper list, else NOVALUE) instead.
// A builtin names itself by its BuiltinOp (runtime/op_table.h), never by a string.
// has_foreign_call: whether v's type has such a hook.
Value foreign_call(BuiltinOp builtin, int argc, Value *argv);
Value foreign_call_in_list(BuiltinOp builtin, Value list, int argc, Value *argv);
bool has_foreign_call(Value v);

// Convenience list builders.
Value list_from(const Value *items, int64_t n);
Value list1(Value a);
Value list2(Value a, Value b);
Value list3(Value a, Value b, Value c);

}  // namespace kiln

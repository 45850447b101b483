// args.cpp — defining builtins and checking their arguments (see args.h).
#include "runtime/args.h"

#include "runtime/eval.h"

namespace kiln {

static Value new_builtin(const char *name, int min, int max, BuiltinFn fn, const char *doc) {
  Builtin *b = alloc_obj<Builtin>(T_BUILTIN);
  b->fn = fn;
  b->name = name;
  b->doc = doc;
  b->min_args = min;
  b->max_args = max;
  return from_ptr(b);
}

Value defbuiltin(const char *name, int min, int max, BuiltinFn fn, const char *doc) {
  Value v = new_builtin(name, min, max, fn, doc);
  sym(intern(name))->global = v;
  return v;
}

Value defbuiltin(BuiltinOp op, int min, int max, BuiltinFn fn, const char *doc) {
  const char *name = op.name();
  if (!name) throw_errorf("defbuiltin: op {} has no builtin in runtime/op_table.h", op.index());
  return defbuiltin(name, min, max, fn, doc);
}

Value make_builtin(const char *name, int min, int max, BuiltinFn fn) {
  return new_builtin(name, min, max, fn, nullptr);
}

void defglobal(const char *name, Value v) { sym(intern(name))->global = v; }

int64_t arg_int(const char *who, int pos, Value v) {
  if (is_int(v)) return int_of(v);
  type_error(who, pos, is_bignum(v) ? "an integer in the 64-bit range" : "an integer", v);
}

int64_t arg_index(const char *who, int pos, Value v) {
  if (is_int(v) && int_of(v) >= 0) return int_of(v);
  type_error(who, pos,
             is_bignum(v) && as<Bignum>(v)->size > 0 ? "a non-negative integer in the 64-bit range"
                                                     : "a non-negative integer",
             v);
}

double arg_num(const char *who, int pos, Value v) {
  if (is_number(v)) return number_as_double(v);
  type_error(who, pos, "a number", v);
}

String *arg_string(const char *who, int pos, Value v) {
  if (is_string(v)) return as<String>(v);
  type_error(who, pos, "a string", v);
}

Span optional_span(const char *who, int argc, Value *a, int first, int64_t len, const char *kind) {
  Span s{0, len};
  if (argc > first) s.start = arg_int(who, first + 1, a[first]);
  if (argc > first + 1) s.end = arg_int(who, first + 2, a[first + 1]);
  if (s.start < 0 || s.start > len) range_error(who, s.start, kind, len);
  if (s.end < 0 || s.end > len) range_error(who, s.end, kind, len);
  if (s.start > s.end) throw_errorf("{}: start index {} is greater than end index {}", who, s.start, s.end);
  return s;
}

std::string arg_path(const char *who, int pos, Value v) {
  std::string path(string_view_of(from_ptr(arg_string(who, pos, v))));
  if (path.find('\0') != std::string::npos)
    throw_errorf("{}: argument {}: a path cannot contain a NUL character, got {}", who, pos,
                 error_value_string(v));
  return path;
}

Value arg_symbol(const char *who, int pos, Value v) {
  if (is_symbol(v)) return v;
  type_error(who, pos, "a symbol", v);
}

uint32_t arg_char(const char *who, int pos, Value v) {
  if (is_char(v)) return char_of(v);
  type_error(who, pos, "a char", v);
}

Pair *arg_pair(const char *who, int pos, Value v) {
  if (is_pair(v)) return as<Pair>(v);
  type_error(who, pos, "a pair", v);
}

Vector *arg_vector(const char *who, int pos, Value v) {
  if (is_vector(v)) return as<Vector>(v);
  type_error(who, pos, "a vector", v);
}

int64_t list_length(Value v) {
  int64_t n = 0;
  Value slow = v;
  while (is_pair(v)) {
    v = cdr(v);
    n++;
    if (!is_pair(v)) break;
    v = cdr(v);
    n++;
    slow = cdr(slow);
    if (v == slow) return -1;  // cyclic
    if ((n & 0xFFFF) == 0) check_interrupt();
  }
  return v == NIL ? n : -1;
}

int64_t arg_list_length(const char *who, int pos, Value v) {
  int64_t n = list_length(v);
  if (n >= 0) return n;
  if (is_circular(v)) throw_errorf("{}: argument {} must be a proper list, got a circular list", who, pos);
  type_error(who, pos, "a proper list", v);
}

Value arg_list(const char *who, int pos, Value v) {
  arg_list_length(who, pos, v);
  return v;
}

Value arg_proc(const char *who, int pos, Value v) {
  if (is_procedure(v)) return v;
  type_error(who, pos, "a procedure", v);
}

Value list_from(const Value *items, int64_t n) {
  Value r = NIL;
  for (int64_t i = n - 1; i >= 0; i--) {
    if ((i & 0xFFFF) == 0) check_interrupt();
    r = cons(items[i], r);
  }
  return r;
}
Value list1(Value a) { return cons(a, NIL); }
Value list2(Value a, Value b) { return cons(a, cons(b, NIL)); }
Value list3(Value a, Value b, Value c) { return cons(a, cons(b, cons(c, NIL))); }

namespace {
const TypeHooks *call_hooks(Value v) {
  if (!is_ptr(v)) return nullptr;
  const TypeHooks &h = g_type_hooks[hdr(v)->type];
  return h.call ? &h : nullptr;
}
}  // namespace

bool has_foreign_call(Value v) { return call_hooks(v) != nullptr; }

Value foreign_call(BuiltinOp builtin, int argc, Value *argv) {
  for (int i = 0; i < argc; i++)
    if (const TypeHooks *h = call_hooks(argv[i])) return h->call(builtin, argc, argv);
  return NOVALUE;
}

Value foreign_call_in_list(BuiltinOp builtin, Value list, int argc, Value *argv) {
  if (list_length(list) < 0) return NOVALUE;
  for (Value p = list; p != NIL; p = cdr(p))
    if (const TypeHooks *h = call_hooks(car(p))) return h->call(builtin, argc, argv);
  return NOVALUE;
}

}  // namespace kiln

// records.cpp — define-record-type and the record primitives it expands into.
#include "runtime/eval.h"
#include "runtime/eval_internal.h"
#include "runtime/srcloc.h"
#include "stdlib/builtins.h"

namespace kiln {

static Value g_record_make, g_record_is, g_record_ref, g_record_set;

// The name a record prints and reports with: <point> → point.
static std::string bare_name(Value type_name) {
  std::string n(symbol_name(type_name));
  if (n.size() > 2 && n.front() == '<' && n.back() == '>') n = n.substr(1, n.size() - 2);
  return n;
}

// The primitives below are bound to no name: define-record-type's expansion
// holds them as quoted constants. Still, that expansion is a value a program
// can take apart ((macroexpand '(define-record-type ...))), so each one checks
// what the expansion always passes instead of trusting it.
static RecordType *checked_type(const char *who, int pos, Value rt) {
  if (!has_type(rt, T_RECORD_TYPE)) type_error(who, pos, "a record type", rt);
  return as<RecordType>(rt);
}

static int64_t field_count(RecordType *rt) {
  int64_t n = 0;
  for (Value p = rt->fields; is_pair(p); p = cdr(p)) n++;
  return n;
}

// (%record-make rt field-value...)
static Value record_make(int argc, Value *argv) {
  RecordType *rt = checked_type("%record-make", 1, argv[0]);
  int64_t n = argc - 1;
  if (n != field_count(rt))
    throw_errorf("%record-make: a {} record has {} fields, got {} values", bare_name(rt->name),
                 field_count(rt), n);
  Record *r = alloc_obj<Record>(T_RECORD, sizeof(Value) * size_t(n));
  r->rtype = from_ptr(rt);
  r->n = n;
  for (int64_t i = 0; i < n; i++) r->fields[i] = argv[i + 1];
  return from_ptr(r);
}

static Value record_is(int, Value *argv) {
  checked_type("%record-is?", 2, argv[1]);
  return boolv(has_type(argv[0], T_RECORD) && as<Record>(argv[0])->rtype == argv[1]);
}

// The record `obj` of type `rt` and its field `index`: `who` (the accessor's
// name) reports a record of another type; the rest is the primitive's error.
static Value *checked_field(const char *prim, Value obj, Value rt, Value index, Value who, int who_pos) {
  checked_type(prim, 2, rt);
  if (!is_symbol(who)) type_error(prim, who_pos, "a symbol", who);
  if (!has_type(obj, T_RECORD) || as<Record>(obj)->rtype != rt)
    type_error(symbol_name(who), 1, "a " + bare_name(as<RecordType>(rt)->name), obj);
  Record *r = as<Record>(obj);
  if (!is_int(index) || int_of(index) < 0 || int_of(index) >= r->n)
    type_error(prim, 3, fmt::format("a field index below {}", r->n), index);
  return &r->fields[int_of(index)];
}

// (%record-ref obj rt index who)
static Value record_ref(int, Value *argv) {
  return *checked_field("%record-ref", argv[0], argv[1], argv[2], argv[3], 4);
}

// (%record-set! obj rt index value who)
static Value record_set(int, Value *argv) {
  *checked_field("%record-set!", argv[0], argv[1], argv[2], argv[4], 5) = argv[3];
  return UNSPEC;
}

static Value quoted(Value v) { return list2(intern("quote"), v); }

static int field_index(Value fields, Value name) {
  int i = 0;
  for (Value p = fields; is_pair(p); p = cdr(p), i++)
    if (car(p) == name) return i;
  return -1;
}

[[noreturn]] static void bad_record_syntax(Value form) {
  throw_error_at(loc_of(form), "define-record-type: bad syntax");
}

// (define-record-type name (ctor field...) pred (field accessor [modifier])...)
Value expand_define_record_type(Value form) {
  if (list_length(form) < 3) bad_record_syntax(form);
  Value name = car(cdr(form));
  if (is_pair(name)) name = car(name);
  if (!is_symbol(name)) bad_record_syntax(form);
  Value ctor = car(cdr(cdr(form)));
  Value pred = is_pair(cdr(cdr(cdr(form)))) ? car(cdr(cdr(cdr(form)))) : FALSE_V;
  Value specs = is_pair(cdr(cdr(cdr(form)))) ? cdr(cdr(cdr(cdr(form)))) : NIL;
  Value fields = NIL;
  int nfields = 0;
  for (Value p = specs; is_pair(p); p = cdr(p)) {
    Value s = car(p);
    Value f = is_pair(s) ? car(s) : s;
    if (!is_symbol(f)) bad_record_syntax(form);
    fields = cons(f, fields);
    nfields++;
  }
  Value rf = NIL;
  for (Value p = fields; is_pair(p); p = cdr(p)) rf = cons(car(p), rf);
  fields = rf;

  RecordType *rt = alloc_obj<RecordType>(T_RECORD_TYPE);
  rt->name = intern(bare_name(name));
  rt->fields = fields;
  Value rtv = from_ptr(rt);
  Value out = NIL;
  auto emit = [&](Value def) { out = cons(def, out); };
  Value define = intern("define"), lambda = intern("lambda");
  emit(list3(define, name, quoted(rtv)));
  if (is_symbol(ctor) || is_pair(ctor)) {
    Value cname = is_pair(ctor) ? car(ctor) : ctor;
    Value cargs = is_pair(ctor) ? cdr(ctor) : fields;
    for (Value p = cargs; is_pair(p); p = cdr(p))
      if (field_index(fields, car(p)) < 0) bad_record_syntax(form);
    Value call = NIL;
    for (Value p = fields; is_pair(p); p = cdr(p)) {
      bool given = false;
      for (Value q = cargs; is_pair(q); q = cdr(q)) given = given || car(q) == car(p);
      call = cons(given ? car(p) : FALSE_V, call);
    }
    Value rc = NIL;
    for (Value p = call; is_pair(p); p = cdr(p)) rc = cons(car(p), rc);
    Value body = cons(quoted(g_record_make), cons(quoted(rtv), rc));
    emit(list3(define, cname, cons(intern("named-lambda"), list2(cons(cname, cargs), body))));
  }
  Value obj = intern("obj"), val = intern("value");
  if (is_symbol(pred))
    emit(list3(define, pred, list3(lambda, list1(obj), list3(quoted(g_record_is), obj, quoted(rtv)))));
  int i = 0;
  for (Value p = specs; is_pair(p); p = cdr(p), i++) {
    Value s = car(p);
    if (!is_pair(s)) continue;
    if (is_pair(cdr(s)) && is_symbol(car(cdr(s)))) {
      Value acc = car(cdr(s));
      Value body = cons(quoted(g_record_ref), cons(obj, list3(quoted(rtv), make_int(i), quoted(acc))));
      emit(list3(define, acc, list3(intern("named-lambda"), list2(acc, obj), body)));
    }
    if (is_pair(cdr(s)) && is_pair(cdr(cdr(s))) && is_symbol(car(cdr(cdr(s))))) {
      Value mod = car(cdr(cdr(s)));
      Value body = cons(quoted(g_record_set),
                        cons(obj, cons(quoted(rtv), cons(make_int(i), list2(val, quoted(mod))))));
      emit(list3(define, mod, list3(intern("named-lambda"), list3(mod, obj, val), body)));
    }
  }
  Value r = NIL;
  for (Value p = out; is_pair(p); p = cdr(p)) r = cons(car(p), r);
  Value result = cons(intern("begin"), r);
  set_loc(result, loc_of(form));
  return result;
}

static BuiltinRegistrar records_registrar([] {
  set_define_record_type_expander(expand_define_record_type);
  g_record_make = make_builtin("%record-make", 1, -1, record_make);
  g_record_is = make_builtin("%record-is?", 2, 2, record_is);
  g_record_ref = make_builtin("%record-ref", 4, 4, record_ref);
  g_record_set = make_builtin("%record-set!", 5, 5, record_set);
  defbuiltin("record?", 1, 1, [](int, Value *a) { return boolv(has_type(a[0], T_RECORD)); });
});

}  // namespace kiln

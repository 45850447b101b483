// lists.cpp — pairs and lists: constructors, accessors, searching, and the
// higher-order list procedures (map, folds, filter, sort ...).
//
// Invariant: builtins copy their arguments out of argv before calling any Lisp
// procedure (it may run arbitrary code, including a GC), build results with
// ListBuilder in GC memory, and walk long lists iteratively. Their frames hold
// only Lisp values, indices, ListWalks and ListBuilders, all safe to resume
// from a continuation's copy, so they call Lisp with call_procedure (no
// reentry barrier, continuation.h): a continuation captured inside map can be
// re-entered, and the ListBuilder copies its cells rather than extend a list
// an earlier return handed out. Procedures
// passed in may be closures, builtins or compiled kernels alike.
#include <algorithm>
#include <cstdint>
#include <string>

#include "runtime/equal.h"
#include "runtime/eval_internal.h"
#include "runtime/hashtable.h"
#include "runtime/number.h"
#include "stdlib/list_walk.h"

namespace kiln {

// ---- pairs ------------------------------------------------------------------

static Value b_cons(int, Value *a) { return cons(a[0], a[1]); }
static Value b_car(int, Value *a) { return arg_pair("car", 1, a[0])->car; }
static Value b_cdr(int, Value *a) { return arg_pair("cdr", 1, a[0])->cdr; }
static Value b_set_car(int, Value *a) {
  arg_pair("set-car!", 1, a[0])->car = a[1];
  return UNSPEC;
}
static Value b_set_cdr(int, Value *a) {
  arg_pair("set-cdr!", 1, a[0])->cdr = a[1];
  return UNSPEC;
}

// c[ad]{2,4}r. PATH is the letters between c and r; they apply right to left.
// The error names what the argument must be, e.g. for cadr
// "a pair whose cdr is a pair".
static Value cxr_walk(const char *name, const char *path, Value v) {
  int n = int(std::char_traits<char>::length(path));
  Value x = v;
  for (int i = n - 1; i >= 0; i--) {
    if (!is_pair(x)) {
      std::string want = "a pair";
      for (int j = n - 1; j >= 1; j--)
        want += path[j] == 'a' ? " whose car is a pair" : " whose cdr is a pair";
      type_error(name, 1, want, v);
    }
    x = path[i] == 'a' ? car(x) : cdr(x);
  }
  return x;
}

#define KILN_CXR(NAME, PATH) \
  static Value b_##NAME(int, Value *a) { return cxr_walk(#NAME, PATH, a[0]); }
// clang-format 14 re-indents this list differently on every pass.
// clang-format off
#define KILN_CXR_LIST(X)                                                                      \
  X(caar, "aa") X(cadr, "ad") X(cdar, "da") X(cddr, "dd")                                     \
  X(caaar, "aaa") X(caadr, "aad") X(cadar, "ada") X(caddr, "add")                             \
  X(cdaar, "daa") X(cdadr, "dad") X(cddar, "dda") X(cdddr, "ddd")                             \
  X(caaaar, "aaaa") X(caaadr, "aaad") X(caadar, "aada") X(caaddr, "aadd")                     \
  X(cadaar, "adaa") X(cadadr, "adad") X(caddar, "adda") X(cadddr, "addd")                     \
  X(cdaaar, "daaa") X(cdaadr, "daad") X(cdadar, "dada") X(cdaddr, "dadd")                     \
  X(cddaar, "ddaa") X(cddadr, "ddad") X(cdddar, "ddda") X(cddddr, "dddd")
// clang-format on
KILN_CXR_LIST(KILN_CXR)
#undef KILN_CXR

// ---- construction -------------------------------------------------------------

static Value b_list(int argc, Value *a) { return list_from(a, argc); }

// (cons* a b ... tail): like list, but the last argument is the tail.
static Value b_cons_star(int argc, Value *a) {
  Value r = a[argc - 1];
  for (int i = argc - 2; i >= 0; i--) r = cons(a[i], r);
  return r;
}

// (make-list k [fill]); fill defaults to 0, as make-vector's does.
static Value b_make_list(int argc, Value *a) {
  int64_t k = arg_index("make-list", 1, a[0]);
  Value fill = argc > 1 ? a[1] : make_fixnum(0);
  Value r = NIL;
  for (int64_t i = 0; i < k; i++) {
    check_interrupt();
    r = cons(fill, r);
  }
  return r;
}

static Value b_list_copy(int, Value *a) {
  ListBuilder b;
  Value l = a[0];
  if (!is_pair(l)) return l;
  if (is_circular(l)) not_proper_list("list-copy", 1, l);
  for (; is_pair(l); l = cdr(l)) b.push(car(l));
  as<Pair>(b.tail)->cdr = l;
  return b.list();
}

// (list-tabulate n f) → ((f 0) (f 1) ... (f n-1))
static Value b_list_tabulate(int, Value *a) {
  int64_t n = arg_index("list-tabulate", 1, a[0]);
  Value f = arg_proc("list-tabulate", 2, a[1]);
  ListBuilder b;
  for (int64_t i = 0; i < n; i++) {
    Value idx = make_int(i);
    b.push(call_procedure(f, 1, &idx));
  }
  return b.list();
}

// Exact arithmetic for iota/range when both are exact, else float.
static Value add_numbers(Value x, Value y) {
  if (is_exact(x) && is_exact(y)) return num_add(x, y);
  return make_double(number_as_double(x) + number_as_double(y));
}

// (iota count [start [step]]): start + i*step for i below count (SRFI-1).
static Value b_iota(int argc, Value *a) {
  int64_t count = arg_index("iota", 1, a[0]);
  Value start = argc > 1 ? a[1] : make_fixnum(0);
  Value step = argc > 2 ? a[2] : make_fixnum(1);
  arg_num("iota", 2, start);
  arg_num("iota", 3, step);
  ListBuilder b;
  if (is_exact(start) && is_exact(step)) {
    for (int64_t i = 0; i < count; i++) b.push(num_add(start, num_mul(make_int(i), step)));
  } else {
    double s = number_as_double(start), d = number_as_double(step);
    for (int64_t i = 0; i < count; i++) b.push(make_double(s + double(i) * d));
  }
  return b.list();
}

// (range END) or (range START END [STEP]) as Racket: START, START+STEP, ...
// (each element the previous one plus STEP) while below END (above END for a
// negative STEP). The first element keeps START's exactness.
static Value b_range(int argc, Value *a) {
  Value start = argc == 1 ? make_fixnum(0) : a[0];
  Value end = argc == 1 ? a[0] : a[1];
  Value step = argc == 3 ? a[2] : make_fixnum(1);
  if (argc > 1) arg_num("range", 1, start);
  arg_num("range", argc == 1 ? 1 : 2, end);
  double d = arg_num("range", 3, step);
  if (d == 0) type_error("range", 3, "a non-zero number", step);
  if (d != d) type_error("range", 3, "a non-zero number", step);
  ListBuilder b;
  for (Value x = start;; x = add_numbers(x, step)) {
    if (d > 0 ? !num_lt(x, end) : !num_lt(end, x)) break;  // exact comparison; NaN ends it
    b.push(x);
  }
  return b.list();
}

// ---- measuring and reshaping ------------------------------------------------------

static Value b_length(int, Value *a) { return make_int(arg_list_length("length", 1, a[0])); }

// (append l1 ... last): copies every list but the last, which becomes the tail
// and may be any value.
static Value b_append(int argc, Value *a) {
  if (argc == 0) return NIL;
  for (int i = 0; i < argc - 1; i++) arg_list_length("append", i + 1, a[i]);
  ListBuilder b;
  for (int i = 0; i < argc - 1; i++)
    for (Value l = a[i]; is_pair(l); l = cdr(l)) b.push(car(l));
  if (b.tail == NIL) return a[argc - 1];
  as<Pair>(b.tail)->cdr = a[argc - 1];
  return b.list();
}

// (append! l1 ... last): like append, but links the lists' own last pairs.
static Value b_append_bang(int argc, Value *a) {
  if (argc == 0) return NIL;
  for (int i = 0; i < argc - 1; i++) arg_list_length("append!", i + 1, a[i]);
  Value head = NIL, last_pair = NIL;
  for (int i = 0; i < argc; i++) {
    if (a[i] == NIL && i < argc - 1) continue;
    if (last_pair == NIL) head = a[i];
    else as<Pair>(last_pair)->cdr = a[i];
    if (i < argc - 1) {
      last_pair = a[i];
      while (is_pair(cdr(last_pair))) last_pair = cdr(last_pair);
    }
  }
  return head;
}

static Value b_reverse(int, Value *a) {
  arg_list_length("reverse", 1, a[0]);
  Value r = NIL;
  for (Value l = a[0]; is_pair(l); l = cdr(l)) {
    check_interrupt();
    r = cons(car(l), r);
  }
  return r;
}

// Follows k cdrs from l; WHO's range error when the list is shorter.
static Value drop_n(const char *who, Value l, Value kv, int kpos) {
  int64_t k = arg_int(who, kpos, kv);
  if (k < 0) {
    if (is_circular(l)) throw_errorf("{}: index {} out of range for a circular list", who, k);
    range_error(who, k, "list", count_pairs(l));
  }
  // Around a loop, k steps land where k mod its length does: (list-tail c
  // 100000000000) answers at once instead of walking for minutes.
  if (k > (int64_t(1) << 20) && is_circular(l)) {
    int64_t mu, lambda;
    loop_shape(l, &mu, &lambda);
    if (k > mu) k = mu + (k - mu) % lambda;
  }
  Value x = l;
  for (int64_t i = 0; i < k; i++) {
    if ((i & 0xFFFF) == 0xFFFF) check_interrupt();
    if (!is_pair(x)) range_error(who, k, "list", count_pairs(l));
    x = cdr(x);
  }
  return x;
}

// The pair at index k, or WHO's range error.
static Value pair_at(const char *who, Value l, Value kv, int kpos) {
  Value x = drop_n(who, l, kv, kpos);
  if (!is_pair(x)) range_error(who, int_of(kv), "list", count_pairs(l));
  return x;
}

static Value b_list_tail(int, Value *a) { return drop_n("list-tail", a[0], a[1], 2); }
static Value b_drop(int, Value *a) { return drop_n("drop", a[0], a[1], 2); }
static Value b_list_ref(int, Value *a) { return car(pair_at("list-ref", a[0], a[1], 2)); }
static Value b_list_set(int, Value *a) {
  as<Pair>(pair_at("list-set!", a[0], a[1], 2))->car = a[2];
  return UNSPEC;
}

// (take l k): a fresh list of l's first k elements.
static Value b_take(int, Value *a) {
  drop_n("take", a[0], a[1], 2);
  ListBuilder b;
  Value l = a[0];
  for (int64_t i = 0, k = int_of(a[1]); i < k; i++, l = cdr(l)) b.push(car(l));
  return b.list();
}

// (nth LIST I) and (nth I LIST): a list first argument is the list, else an
// integer first argument is the index.
static Value b_nth(int, Value *a) {
  bool index_first = !is_pair(a[0]) && a[0] != NIL && is_int(a[0]);
  Value l = index_first ? a[1] : a[0];
  Value k = index_first ? a[0] : a[1];
  int lpos = index_first ? 2 : 1;
  if (!is_pair(l) && l != NIL) not_proper_list("nth", lpos, l);
  return car(pair_at("nth", l, k, 3 - lpos));
}

static Value b_last_pair(int, Value *a) {
  Value l = from_ptr(arg_pair("last-pair", 1, a[0]));
  if (is_circular(l)) not_proper_list("last-pair", 1, l);
  while (is_pair(cdr(l))) l = cdr(l);
  return l;
}
static Value b_last(int, Value *a) {
  Value l = from_ptr(arg_pair("last", 1, a[0]));
  if (is_circular(l)) not_proper_list("last", 1, l);
  while (is_pair(cdr(l))) l = cdr(l);
  return car(l);
}

// first .. tenth (SRFI-1).
template <int N> static Value nth_named(int, Value *a) {
  static const char *const names[] = {"first", "second",  "third",  "fourth", "fifth",
                                      "sixth", "seventh", "eighth", "ninth",  "tenth"};
  static const char *const wants[] = {"a list of at least 1 element",  "a list of at least 2 elements",
                                      "a list of at least 3 elements", "a list of at least 4 elements",
                                      "a list of at least 5 elements", "a list of at least 6 elements",
                                      "a list of at least 7 elements", "a list of at least 8 elements",
                                      "a list of at least 9 elements", "a list of at least 10 elements"};
  Value x = a[0];
  for (int i = 0; i < N; i++) {
    if (!is_pair(x)) type_error(names[N], 1, wants[N], a[0]);
    x = cdr(x);
  }
  if (!is_pair(x)) type_error(names[N], 1, wants[N], a[0]);
  return car(x);
}

// ---- searching ------------------------------------------------------------------

enum class ElementMatch { Eq, Eqv, Equal, Proc };

static bool same(ElementMatch how, Value proc, Value x, Value y) {
  switch (how) {
  case ElementMatch::Eq: return eq(x, y);
  case ElementMatch::Eqv: return eqv(x, y);
  case ElementMatch::Equal: return equal(x, y);
  case ElementMatch::Proc: {
    Value args[2] = {x, y};
    return truthy(call_procedure(proc, 2, args));
  }
  }
  return false;
}

// memq / memv / member: the first tail whose car matches x, else #f.
static Value member_generic(const char *who, ElementMatch how, int argc, Value *a) {
  Value x = a[0], list = a[1], proc = NOVALUE;
  if (argc > 2) {
    proc = arg_proc(who, 3, a[2]);
    how = ElementMatch::Proc;
  }
  arg_list_length(who, 2, list);
  for (Value l = list; is_pair(l); l = cdr(l)) {
    check_interrupt();
    if (same(how, proc, x, car(l))) return l;
  }
  return FALSE_V;
}
static Value b_memq(int argc, Value *a) { return member_generic("memq", ElementMatch::Eq, argc, a); }
static Value b_memv(int argc, Value *a) { return member_generic("memv", ElementMatch::Eqv, argc, a); }
static Value b_member(int argc, Value *a) { return member_generic("member", ElementMatch::Equal, argc, a); }

// assq / assv / assoc: the first pair whose car matches x, else #f.
static Value assoc_generic(const char *who, ElementMatch how, int argc, Value *a) {
  Value x = a[0], alist = a[1], proc = NOVALUE;
  if (argc > 2) {
    proc = arg_proc(who, 3, a[2]);
    how = ElementMatch::Proc;
  }
  if (list_length(alist) < 0) list_arg_error(who, 2, "a list of pairs", alist);
  Value l = alist;
  for (; is_pair(l); l = cdr(l)) {
    check_interrupt();
    Value entry = car(l);
    if (!is_pair(entry)) list_arg_error(who, 2, "a list of pairs", alist);
    if (same(how, proc, x, car(entry))) return entry;
  }
  return FALSE_V;
}
static Value b_assq(int argc, Value *a) { return assoc_generic("assq", ElementMatch::Eq, argc, a); }
static Value b_assv(int argc, Value *a) { return assoc_generic("assv", ElementMatch::Eqv, argc, a); }
static Value b_assoc(int argc, Value *a) { return assoc_generic("assoc", ElementMatch::Equal, argc, a); }

// (alist-copy alist): fresh spine and fresh top-level pairs.
static Value b_alist_copy(int, Value *a) {
  arg_list_length("alist-copy", 1, a[0]);
  ListBuilder b;
  for (Value l = a[0]; is_pair(l); l = cdr(l)) {
    Value e = car(l);
    b.push(is_pair(e) ? cons(car(e), cdr(e)) : e);
  }
  return b.list();
}

// ---- higher-order -------------------------------------------------------------------

// Shared shape of (OP f list1 list2 ...): the procedure and a walk over the lists.
struct ProcAndLists {
  Value f;
  int nlists;
  ListWalk walk;
  ValueBuf args;
  ProcAndLists(const char *who, int argc, Value *a)
      : f(arg_proc(who, 1, a[0])), nlists(argc - 1), walk(who, 2, argc - 1, a + 1), args(argc) {}
  bool next() { return walk.next(args.data()); }
  Value call() { return call_procedure(f, nlists, args.data()); }
};

static Value b_map(int argc, Value *a) {
  ProcAndLists pl("map", argc, a);
  ListBuilder b;
  while (pl.next()) b.push(pl.call());
  return b.list();
}

static Value b_for_each(int argc, Value *a) {
  ProcAndLists pl("for-each", argc, a);
  while (pl.next()) pl.call();
  return UNSPEC;
}

// (append-map f l ...): (apply append (map f l ...)).
static Value b_append_map(int argc, Value *a) {
  ProcAndLists pl("append-map", argc, a);
  ListBuilder b;
  while (pl.next()) {
    Value part = pl.call();
    arg_list_length("append-map", 1, part);
    for (; is_pair(part); part = cdr(part)) b.push(car(part));
  }
  return b.list();
}

// (filter-map f l ...): the true results of f.
static Value b_filter_map(int argc, Value *a) {
  ProcAndLists pl("filter-map", argc, a);
  ListBuilder b;
  while (pl.next()) {
    Value r = pl.call();
    if (truthy(r)) b.push(r);
  }
  return b.list();
}

// (any pred l ...): the first true result, else #f.
static Value b_any(int argc, Value *a) {
  ProcAndLists pl("any", argc, a);
  while (pl.next()) {
    Value r = pl.call();
    if (truthy(r)) return r;
  }
  return FALSE_V;
}

// (every pred l ...): #f at the first false result, else the last result (#t if none).
static Value b_every(int argc, Value *a) {
  ProcAndLists pl("every", argc, a);
  Value r = TRUE_V;
  while (pl.next()) {
    r = pl.call();
    if (!truthy(r)) return FALSE_V;
  }
  return r;
}

// (list-index pred l ...): index of the first true result, else #f.
static Value b_list_index(int argc, Value *a) {
  ProcAndLists pl("list-index", argc, a);
  for (int64_t i = 0; pl.next(); i++)
    if (truthy(pl.call())) return make_int(i);
  return FALSE_V;
}

// (count pred l ...): how many true results.
static Value b_count(int argc, Value *a) {
  ProcAndLists pl("count", argc, a);
  int64_t n = 0;
  while (pl.next())
    if (truthy(pl.call())) n++;
  return make_int(n);
}

// (fold-left f init l ...) R6RS: (f (f init a0 b0) a1 b1) ...
static Value b_fold_left(int argc, Value *a) {
  Value f = arg_proc("fold-left", 1, a[0]);
  Value acc = a[1];
  int n = argc - 2;
  ListWalk walk("fold-left", 3, n, a + 2);
  ValueBuf args(n + 1);
  while (walk.next(args.data() + 1)) {
    args[0] = acc;
    acc = call_procedure(f, n + 1, args.data());
  }
  return acc;
}

// (foldl f init l ...) Racket and (fold f init l ...) SRFI-1: (f a0 b0 init), left to right.
static Value fold_acc_last(const char *who, int argc, Value *a) {
  Value f = arg_proc(who, 1, a[0]);
  Value acc = a[1];
  int n = argc - 2;
  ListWalk walk(who, 3, n, a + 2);
  ValueBuf args(n + 1);
  while (walk.next(args.data())) {
    args[n] = acc;
    acc = call_procedure(f, n + 1, args.data());
  }
  return acc;
}
static Value b_foldl(int argc, Value *a) { return fold_acc_last("foldl", argc, a); }
static Value b_fold(int argc, Value *a) { return fold_acc_last("fold", argc, a); }

// (fold-right f init l ...) R6RS = (foldr f init l ...) Racket:
// (f a0 b0 (f a1 b1 ... init)). The elements are gathered first so the
// right-to-left pass needs no C++ recursion.
static Value fold_right_generic(const char *who, int argc, Value *a) {
  Value f = arg_proc(who, 1, a[0]);
  Value acc = a[1];
  int n = argc - 2;
  ListWalk walk(who, 3, n, a + 2);
  int64_t steps = walk.steps();
  Value *rows = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(steps * n + 1)));
  int64_t got = 0;
  while (walk.next(rows + got * n)) got++;
  ValueBuf args(n + 1);
  for (int64_t i = got - 1; i >= 0; i--) {
    for (int j = 0; j < n; j++) args[j] = rows[i * n + j];
    args[n] = acc;
    acc = call_procedure(f, n + 1, args.data());
  }
  return acc;
}
static Value b_fold_right(int argc, Value *a) { return fold_right_generic("fold-right", argc, a); }
static Value b_foldr(int argc, Value *a) { return fold_right_generic("foldr", argc, a); }

// (reduce f ridentity l) SRFI-1: ridentity for (), else (f e2 (f e1 e0)) ...
static Value b_reduce(int, Value *a) {
  Value f = arg_proc("reduce", 1, a[0]);
  Value list = a[2];
  arg_list_length("reduce", 3, list);
  if (list == NIL) return a[1];
  Value acc = car(list);
  for (Value l = cdr(list); is_pair(l); l = cdr(l)) {
    Value args[2] = {car(l), acc};
    acc = call_procedure(f, 2, args);
  }
  return acc;
}

// Calls (pred x) for each element of a proper list and keeps those whose
// result's truth equals `keep`.
static Value filter_generic(const char *who, Value pred, Value list, bool keep) {
  arg_list_length(who, 2, list);
  ListBuilder b;
  for (Value l = list; is_pair(l); l = cdr(l)) {
    Value x = car(l);
    if (truthy(call_procedure(pred, 1, &x)) == keep) b.push(x);
  }
  return b.list();
}
static Value b_filter(int, Value *a) {
  return filter_generic("filter", arg_proc("filter", 1, a[0]), a[1], true);
}
static Value b_remove(int, Value *a) {
  return filter_generic("remove", arg_proc("remove", 1, a[0]), a[1], false);
}

// (partition pred l) → two values: the elements that pass, those that fail.
static Value b_partition(int, Value *a) {
  Value pred = arg_proc("partition", 1, a[0]);
  Value list = a[1];
  arg_list_length("partition", 2, list);
  ListBuilder in, out;
  for (Value l = list; is_pair(l); l = cdr(l)) {
    Value x = car(l);
    if (truthy(call_procedure(pred, 1, &x))) in.push(x);
    else out.push(x);
  }
  Value both[2] = {in.list(), out.list()};
  return make_values(2, both);
}

// (delete x l [=]): l without the elements equal? (or =) to x.
static Value b_delete(int argc, Value *a) {
  Value x = a[0], list = a[1];
  Value proc = argc > 2 ? arg_proc("delete", 3, a[2]) : NOVALUE;
  ElementMatch how = argc > 2 ? ElementMatch::Proc : ElementMatch::Equal;
  arg_list_length("delete", 2, list);
  ListBuilder b;
  for (Value l = list; is_pair(l); l = cdr(l))
    if (!same(how, proc, x, car(l))) b.push(car(l));
    else check_interrupt();
  return b.list();
}

// (delete-duplicates l [=]): keeps the first of each group of equal elements.
// With the default equal? a hash table makes it linear.
static Value b_delete_duplicates(int argc, Value *a) {
  Value list = a[0];
  arg_list_length("delete-duplicates", 1, list);
  ListBuilder b;
  if (argc == 1) {
    Value seen = make_hashtable(HASH_EQUAL);
    Value dummy;
    for (Value l = list; is_pair(l); l = cdr(l)) {
      check_interrupt();
      if (hashtable_lookup(seen, car(l), &dummy)) continue;
      hashtable_set(seen, car(l), TRUE_V);
      b.push(car(l));
    }
    return b.list();
  }
  Value proc = arg_proc("delete-duplicates", 2, a[1]);
  for (Value l = list; is_pair(l); l = cdr(l)) {
    bool dup = false;
    for (Value k = b.list(); is_pair(k) && !dup; k = cdr(k))
      dup = same(ElementMatch::Proc, proc, car(k), car(l));
    if (!dup) b.push(car(l));
  }
  return b.list();
}

// The first pair of list a[1] whose element x gives (a[0] x) the truth value
// `holds`, with that element in *x (read before the call); the list's end (no
// pair) when there is none. `who` names the builtin in argument errors.
static Value first_pair_where(const char *who, Value *a, bool holds, Value *x) {
  Value pred = arg_proc(who, 1, a[0]);
  Value list = a[1];
  arg_list_length(who, 2, list);
  Value l = list;
  for (; is_pair(l); l = cdr(l)) {
    *x = car(l);
    if (truthy(call_procedure(pred, 1, x)) == holds) break;
  }
  return l;
}

// (find pred l): the first element satisfying pred, else #f.
static Value b_find(int, Value *a) {
  Value x;
  return is_pair(first_pair_where("find", a, true, &x)) ? x : FALSE_V;
}

// (find-tail pred l): the first pair whose car satisfies pred, else #f.
static Value b_find_tail(int, Value *a) {
  Value x, l = first_pair_where("find-tail", a, true, &x);
  return is_pair(l) ? l : FALSE_V;
}

// (take-while pred l) / (drop-while pred l)
static Value b_take_while(int, Value *a) {
  Value pred = arg_proc("take-while", 1, a[0]);
  Value list = a[1];
  arg_list_length("take-while", 2, list);
  ListBuilder b;
  for (Value l = list; is_pair(l); l = cdr(l)) {
    Value x = car(l);
    if (!truthy(call_procedure(pred, 1, &x))) break;
    b.push(x);
  }
  return b.list();
}
static Value b_drop_while(int, Value *a) {
  Value x;
  return first_pair_where("drop-while", a, false, &x);
}

// (apply f a ... list): calls f with the a's followed by the list's elements.
static Value b_apply(int argc, Value *a) {
  Value f = arg_proc("apply", 1, a[0]);
  Value tail = a[argc - 1];
  int64_t n = arg_list_length("apply", argc, tail);
  int64_t total = argc - 2 + n;
  if (total > INT32_MAX) throw_errorf("apply: too many arguments ({})", total);
  ValueBuf args(total);
  int64_t k = 0;
  for (int i = 1; i < argc - 1; i++) args[k++] = a[i];
  for (Value l = tail; is_pair(l); l = cdr(l)) args[k++] = car(l);
  // R7RS: apply calls f in tail position (the caller finishes the TAILCALL).
  return tail_call_to(f, int(total), args.data());
}

static BuiltinRegistrar lists_registrar([] {
  defbuiltin("cons", 2, 2, b_cons, "(cons a d): a new pair whose car is a and cdr is d.");
  defbuiltin("car", 1, 1, b_car, "(car p): the first field of pair p.");
  defbuiltin("cdr", 1, 1, b_cdr, "(cdr p): the second field of pair p.");
  defbuiltin("set-car!", 2, 2, b_set_car, "(set-car! p x): stores x in the car of pair p.");
  defbuiltin("set-cdr!", 2, 2, b_set_cdr, "(set-cdr! p x): stores x in the cdr of pair p.");
#define KILN_CXR_REG(NAME, PATH) \
  defbuiltin(#NAME, 1, 1, b_##NAME, "(" #NAME " x): the composition of car and cdr its name spells.");
  KILN_CXR_LIST(KILN_CXR_REG)
#undef KILN_CXR_REG
  defbuiltin("list", 0, -1, b_list, "(list x ...): a new list of the arguments.");
  defbuiltin("cons*", 1, -1, b_cons_star,
             "(cons* x ... tail): like list, but the last argument is the tail.");
  defbuiltin("list*", 1, -1, b_cons_star, "(list* x ... tail): same as cons*.");
  defbuiltin("make-list", 1, 2, b_make_list, "(make-list k [fill]): a list of k copies of fill (default 0).");
  defbuiltin("list-copy", 1, 1, b_list_copy,
             "(list-copy l): a copy of l's spine (an improper tail is kept).");
  defbuiltin("list-tabulate", 2, 2, b_list_tabulate, "(list-tabulate n f): ((f 0) ... (f n-1)).");
  defbuiltin("iota", 1, 3, b_iota, "(iota count [start [step]]): (start start+step ...), count elements.");
  defbuiltin("range", 1, 3, b_range,
             "(range end) or (range start end [step]): start, start+step, ... up to but excluding end.");
  defbuiltin("length", 1, 1, b_length, "(length l): the number of elements of proper list l.");
  defbuiltin("append", 0, -1, b_append,
             "(append l ... last): the lists' elements in order; last becomes the tail.");
  defbuiltin("append!", 0, -1, b_append_bang, "(append! l ... last): append that reuses the lists' pairs.");
  defbuiltin("reverse", 1, 1, b_reverse, "(reverse l): a new list of l's elements in reverse order.");
  defbuiltin("list-tail", 2, 2, b_list_tail, "(list-tail l k): l without its first k elements.");
  defbuiltin("drop", 2, 2, b_drop, "(drop l k): l without its first k elements.");
  defbuiltin("take", 2, 2, b_take, "(take l k): a new list of l's first k elements.");
  defbuiltin("list-ref", 2, 2, b_list_ref, "(list-ref l k): element k of l (0-based).");
  defbuiltin("list-set!", 3, 3, b_list_set, "(list-set! l k x): stores x as element k of l.");
  defbuiltin("nth", 2, 2, b_nth, "(nth l i) or (nth i l): element i of l (0-based).");
  defbuiltin("last-pair", 1, 1, b_last_pair, "(last-pair l): the last pair of non-empty list l.");
  defbuiltin("last", 1, 1, b_last, "(last l): the last element of non-empty list l.");
  defbuiltin("first", 1, 1, nth_named<0>, "(first l): element 0 of l.");
  defbuiltin("second", 1, 1, nth_named<1>, "(second l): element 1 of l.");
  defbuiltin("third", 1, 1, nth_named<2>, "(third l): element 2 of l.");
  defbuiltin("fourth", 1, 1, nth_named<3>, "(fourth l): element 3 of l.");
  defbuiltin("fifth", 1, 1, nth_named<4>, "(fifth l): element 4 of l.");
  defbuiltin("sixth", 1, 1, nth_named<5>, "(sixth l): element 5 of l.");
  defbuiltin("seventh", 1, 1, nth_named<6>, "(seventh l): element 6 of l.");
  defbuiltin("eighth", 1, 1, nth_named<7>, "(eighth l): element 7 of l.");
  defbuiltin("ninth", 1, 1, nth_named<8>, "(ninth l): element 8 of l.");
  defbuiltin("tenth", 1, 1, nth_named<9>, "(tenth l): element 9 of l.");
  defbuiltin("memq", 2, 2, b_memq, "(memq x l): the first tail of l whose car is eq? to x, else #f.");
  defbuiltin("memv", 2, 2, b_memv, "(memv x l): the first tail of l whose car is eqv? to x, else #f.");
  defbuiltin("member", 2, 3, b_member,
             "(member x l [compare]): the first tail of l whose car is equal? (or compare) to x, else #f.");
  defbuiltin("assq", 2, 2, b_assq, "(assq key alist): the first pair whose car is eq? to key, else #f.");
  defbuiltin("assv", 2, 2, b_assv, "(assv key alist): the first pair whose car is eqv? to key, else #f.");
  defbuiltin("assoc", 2, 3, b_assoc,
             "(assoc key alist [compare]): the first pair whose car is equal? (or compare) to key, else #f.");
  defbuiltin("alist-copy", 1, 1, b_alist_copy, "(alist-copy alist): a copy with fresh top-level pairs.");
  defbuiltin("map", 2, -1, b_map, "(map f l ...): the list of (f x y ...), stopping at the shortest list.");
  defbuiltin("for-each", 2, -1, b_for_each, "(for-each f l ...): calls (f x y ...) in order for effect.");
  defbuiltin("append-map", 2, -1, b_append_map, "(append-map f l ...): (apply append (map f l ...)).");
  defbuiltin("filter-map", 2, -1, b_filter_map, "(filter-map f l ...): the true results of (map f l ...).");
  defbuiltin("any", 2, -1, b_any, "(any pred l ...): the first true (pred x y ...), else #f.");
  defbuiltin("every", 2, -1, b_every,
             "(every pred l ...): #f if some (pred x y ...) is #f, else the last result.");
  defbuiltin("list-index", 2, -1, b_list_index,
             "(list-index pred l ...): index of the first true result, else #f.");
  defbuiltin("count", 2, -1, b_count, "(count pred l ...): how many (pred x y ...) are true.");
  defbuiltin("fold-left", 3, -1, b_fold_left, "(fold-left f init l ...): (f (f init x0) x1) ... (R6RS).");
  defbuiltin("fold-right", 3, -1, b_fold_right, "(fold-right f init l ...): (f x0 (f x1 ... init)) (R6RS).");
  defbuiltin("foldl", 3, -1, b_foldl, "(foldl f init l ...): (f xn ... (f x1 (f x0 init))) (Racket).");
  defbuiltin("foldr", 3, -1, b_foldr, "(foldr f init l ...): (f x0 (f x1 ... init)) (Racket).");
  defbuiltin("fold", 3, -1, b_fold, "(fold f init l ...): (f xn ... (f x0 init)) (SRFI-1).");
  defbuiltin("reduce", 3, 3, b_reduce,
             "(reduce f ridentity l): (f xn ... (f x1 x0)), ridentity for () (SRFI-1).");
  defbuiltin("filter", 2, 2, b_filter, "(filter pred l): the elements satisfying pred.");
  defbuiltin("remove", 2, 2, b_remove, "(remove pred l): the elements not satisfying pred.");
  defbuiltin("partition", 2, 2, b_partition,
             "(partition pred l): two values, the elements that pass and fail.");
  defbuiltin("delete", 2, 3, b_delete, "(delete x l [=]): l without the elements equal? (or =) to x.");
  defbuiltin("delete-duplicates", 1, 2, b_delete_duplicates,
             "(delete-duplicates l [=]): l keeping only the first of equal? (or =) elements.");
  defbuiltin("find", 2, 2, b_find, "(find pred l): the first element satisfying pred, else #f.");
  defbuiltin("find-tail", 2, 2, b_find_tail,
             "(find-tail pred l): the first tail whose car satisfies pred, else #f.");
  defbuiltin("take-while", 2, 2, b_take_while, "(take-while pred l): the longest prefix satisfying pred.");
  defbuiltin("drop-while", 2, 2, b_drop_while,
             "(drop-while pred l): l after its longest prefix satisfying pred.");
  defbuiltin("apply", 2, -1, b_apply, "(apply f x ... l): calls f with the x's and the elements of list l.");
});

}  // namespace kiln

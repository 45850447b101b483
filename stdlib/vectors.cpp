// vectors.cpp — R7RS vector procedures plus subvector and vector-grow.
//
// Invariant: vectors have a fixed length, so an index checked once stays
// valid even after a Lisp procedure runs; every index is checked against the
// length with the docs/builtins.md range message (negative indices included).
#include <cstring>

#include "runtime/eval_internal.h"
#include "stdlib/list_walk.h"

namespace kiln {

static Vector *vec(const char *who, int pos, Value v) { return arg_vector(who, pos, v); }

// An index into a vector of length len (0 <= i < len).
static int64_t vector_index(const char *who, int pos, Value k, int64_t len) {
  int64_t i = arg_int(who, pos, k);
  if (i < 0 || i >= len) range_error(who, i, "vector", len);
  return i;
}

static Value copy_span(Vector *v, Span s) {
  Value r = make_vector(s.end - s.start, NIL);
  copy_values(as<Vector>(r)->items, v->items + s.start, s.end - s.start);
  return r;
}

static Value b_vector(int argc, Value *a) {
  Value r = make_vector(argc, NIL);
  copy_values(as<Vector>(r)->items, a, argc);
  return r;
}

// (make-vector k [fill]); fill defaults to 0.
static Value b_make_vector(int argc, Value *a) {
  int64_t k = arg_index("make-vector", 1, a[0]);
  if (k > (int64_t(1) << 40)) type_error("make-vector", 1, "a reasonable vector length", a[0]);
  return make_vector(k, argc > 1 ? a[1] : make_fixnum(0));
}

static Value b_vector_ref(int, Value *a) {
  Vector *v = vec("vector-ref", 1, a[0]);
  return v->items[vector_index("vector-ref", 2, a[1], v->len)];
}

static Value b_vector_set(int, Value *a) {
  Vector *v = vec("vector-set!", 1, a[0]);
  v->items[vector_index("vector-set!", 2, a[1], v->len)] = a[2];
  return UNSPEC;
}

static Value b_vector_length(int, Value *a) { return make_int(vec("vector-length", 1, a[0])->len); }

static Value b_vector_to_list(int argc, Value *a) {
  Vector *v = vec("vector->list", 1, a[0]);
  Span s = optional_span("vector->list", argc, a, 1, v->len, "vector");
  return list_from(v->items + s.start, s.end - s.start);
}

static Value b_list_to_vector(int, Value *a) {
  int64_t n = arg_list_length("list->vector", 1, a[0]);
  Value r = make_vector(n, NIL);
  int64_t i = 0;
  for (Value l = a[0]; is_pair(l); l = cdr(l)) as<Vector>(r)->items[i++] = car(l);
  return r;
}

static Value b_vector_fill(int argc, Value *a) {
  Vector *v = vec("vector-fill!", 1, a[0]);
  Span s = optional_span("vector-fill!", argc, a, 2, v->len, "vector");
  for (int64_t i = s.start; i < s.end; i++) {
    if ((i & 0xFFFFF) == 0) check_interrupt();
    v->items[i] = a[1];
  }
  return UNSPEC;
}

static Value b_vector_copy(int argc, Value *a) {
  Vector *v = vec("vector-copy", 1, a[0]);
  return copy_span(v, optional_span("vector-copy", argc, a, 1, v->len, "vector"));
}

static Value b_subvector(int argc, Value *a) {
  Vector *v = vec("subvector", 1, a[0]);
  return copy_span(v, optional_span("subvector", argc, a, 1, v->len, "vector"));
}

// (vector-copy! to at from [start [end]]): overlapping ranges copy correctly.
static Value b_vector_copy_bang(int argc, Value *a) {
  Vector *to = vec("vector-copy!", 1, a[0]);
  int64_t at = arg_int("vector-copy!", 2, a[1]);
  Vector *from = vec("vector-copy!", 3, a[2]);
  Span s = optional_span("vector-copy!", argc, a, 3, from->len, "vector");
  if (at < 0 || at > to->len) range_error("vector-copy!", at, "vector", to->len);
  int64_t n = s.end - s.start;
  if (n > to->len - at)
    throw_errorf("vector-copy!: {} elements do not fit at index {} of a vector of length {}", n, at, to->len);
  std::memmove(to->items + at, from->items + s.start, sizeof(Value) * size_t(n));
  return UNSPEC;
}

static Value b_vector_append(int argc, Value *a) {
  int64_t total = 0;
  for (int i = 0; i < argc; i++) total += vec("vector-append", i + 1, a[i])->len;
  Value r = make_vector(total, NIL);
  int64_t k = 0;
  for (int i = 0; i < argc; i++) {
    Vector *v = as<Vector>(a[i]);
    copy_values(as<Vector>(r)->items + k, v->items, v->len);
    k += v->len;
  }
  return r;
}

// (vector-grow v k): a new vector of length k >= (vector-length v) starting
// with v's elements; the rest are 0, as in make-vector.
static Value b_vector_grow(int, Value *a) {
  Vector *v = vec("vector-grow", 1, a[0]);
  int64_t k = arg_index("vector-grow", 2, a[1]);
  if (k < v->len)
    throw_errorf("vector-grow: new length {} is smaller than the vector's length {}", k, v->len);
  Value r = make_vector(k, make_fixnum(0));
  copy_values(as<Vector>(r)->items, v->items, v->len);
  return r;
}

// Shared shape of (vector-map f v1 v2 ...) / (vector-for-each f v1 v2 ...):
// element i of each vector, for i below the shortest length.
struct VectorWalk {
  Value f;
  int n;
  int64_t len;
  ValueBuf vectors;
  ValueBuf args;
  VectorWalk(const char *who, int argc, Value *a)
      : f(arg_proc(who, 1, a[0])), n(argc - 1), len(-1), vectors(argc - 1), args(argc - 1) {
    for (int i = 0; i < n; i++) {
      vectors[i] = a[i + 1];
      int64_t l = vec(who, i + 2, a[i + 1])->len;
      if (len < 0 || l < len) len = l;
    }
  }
  // Without the reentry barrier (continuation.h), as for-each: a re-entry
  // resumes this frame, whose state is the index on the stack, the vectors
  // (never changed) and args (refilled before each call).
  Value call(int64_t i) {
    for (int j = 0; j < n; j++) args[j] = as<Vector>(vectors[j])->items[i];
    return call_procedure(f, n, args.data());
  }
};

static Value b_vector_map(int argc, Value *a) {
  VectorWalk w("vector-map", argc, a);
  Value r = make_vector(w.len, UNSPEC);
  uint64_t epoch = g_reentry_epoch;
  for (int64_t i = 0; i < w.len; i++) {
    Value x = w.call(i);
    // Resumed by a re-entry: an earlier return may have handed r out already.
    if (epoch != g_reentry_epoch) {
      epoch = g_reentry_epoch;
      Value fresh = make_vector(w.len, UNSPEC);
      copy_values(as<Vector>(fresh)->items, as<Vector>(r)->items, i);
      r = fresh;
    }
    as<Vector>(r)->items[i] = x;
  }
  return r;
}

static Value b_vector_for_each(int argc, Value *a) {
  VectorWalk w("vector-for-each", argc, a);
  for (int64_t i = 0; i < w.len; i++) w.call(i);
  return UNSPEC;
}

static BuiltinRegistrar vectors_registrar([] {
  defbuiltin("vector", 0, -1, b_vector, "(vector x ...): a new vector of the arguments.");
  defbuiltin("make-vector", 1, 2, b_make_vector,
             "(make-vector k [fill]): a vector of k copies of fill (default 0).");
  defbuiltin("vector-ref", 2, 2, b_vector_ref, "(vector-ref v k): element k of v (0-based).");
  defbuiltin("vector-set!", 3, 3, b_vector_set, "(vector-set! v k x): stores x as element k of v.");
  defbuiltin("vector-length", 1, 1, b_vector_length, "(vector-length v): the number of elements of v.");
  defbuiltin("vector->list", 1, 3, b_vector_to_list,
             "(vector->list v [start [end]]): v's elements as a list.");
  defbuiltin("list->vector", 1, 1, b_list_to_vector, "(list->vector l): a new vector of l's elements.");
  defbuiltin("vector-fill!", 2, 4, b_vector_fill,
             "(vector-fill! v x [start [end]]): stores x in every slot.");
  defbuiltin("vector-copy", 1, 3, b_vector_copy,
             "(vector-copy v [start [end]]): a new vector of those elements.");
  defbuiltin("subvector", 3, 3, b_subvector,
             "(subvector v start end): a new vector of elements start..end-1.");
  defbuiltin("vector-copy!", 3, 5, b_vector_copy_bang,
             "(vector-copy! to at from [start [end]]): copies from's elements into to at index at.");
  defbuiltin("vector-append", 0, -1, b_vector_append,
             "(vector-append v ...): a new vector of all the elements.");
  defbuiltin("vector-grow", 2, 2, b_vector_grow, "(vector-grow v k): a longer copy of v (new slots hold 0).");
  defbuiltin("vector-map", 2, -1, b_vector_map,
             "(vector-map f v ...): a vector of (f x y ...), to the shortest.");
  defbuiltin("vector-for-each", 2, -1, b_vector_for_each,
             "(vector-for-each f v ...): calls (f x y ...) in order, to the shortest vector.");
});

}  // namespace kiln

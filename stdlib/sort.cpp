// sort.cpp — stable merge sort for lists and vectors.
//
// Invariant: the elements being sorted sit in GC memory for the whole sort,
// because the comparison procedure is Lisp code that may allocate and collect.
// Re-entry: less? is called without a reentry barrier (continuation.h), so a
// continuation captured in it may resume merge_sort's frame after the sort has
// gone on or returned. Each pass therefore reads an array no later pass writes
// (the passes reuse one spare array only while no continuation has been
// captured since the sort began), and copies the one it writes when a re-entry
// has happened since its last store (g_reentry_epoch).
// Stability: an element of the right run moves ahead of one of the left run
// only when (less? right left) is true.
//
// Argument order: (sort SEQ LESS?) is Kiln's convention (docs/builtins.md); (list-sort LESS?
// LIST) and (vector-sort LESS? VEC) follow SRFI-132. Every sort procedure
// accepts either order, telling them apart by which argument is a procedure.
#include <algorithm>
#include <cstring>

#include "runtime/eval_internal.h"
#include "stdlib/list_walk.h"

namespace kiln {

static bool less_than(Value less, Value x, Value y) {
  Value args[2] = {x, y};
  return truthy(call_procedure(less, 2, args));
}

static Value *new_items(int64_t n) { return static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(n + 1))); }

// dst written from index k on by this frame: after a re-entry, a copy of its
// first k slots (an earlier run of the same pass may be writing the rest).
static Value *own_dst(Value *dst, int64_t k, int64_t n, uint64_t *epoch) {
  if (*epoch == g_reentry_epoch) return dst;
  *epoch = g_reentry_epoch;
  Value *fresh = new_items(n);
  copy_values(fresh, dst, k);
  return fresh;
}

// The sorted elements of items[0, n): items itself or a new array.
static Value *merge_sort(Value *items, int64_t n, Value less) {
  uint64_t epoch = g_reentry_epoch, captures = g_resumable_captures;
  Value *spare = nullptr;  // the array the previous pass read
  for (int64_t width = 1; width < n; width *= 2) {
    Value *src = items, *dst = spare && captures == g_resumable_captures ? spare : new_items(n);
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      int64_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      int64_t i = lo, j = mid, k = lo;
      bool in_order = mid >= hi || !less_than(less, src[mid], src[mid - 1]);
      dst = own_dst(dst, k, n, &epoch);
      if (!in_order) {
        while (i < mid && j < hi) {
          bool right = less_than(less, src[j], src[i]);
          dst = own_dst(dst, k, n, &epoch);
          dst[k++] = right ? src[j++] : src[i++];
        }
      }
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    spare = src;
    items = dst;
  }
  return items;
}

struct SortArgs {
  Value seq;
  Value less;
};

// Picks the sequence and the predicate out of either argument order and
// checks them; `proc_first` is the documented order of WHO.
static SortArgs sort_args(const char *who, Value *a, bool proc_first) {
  if (is_procedure(a[0]) && !is_procedure(a[1])) proc_first = true;
  else if (is_procedure(a[1]) && !is_procedure(a[0])) proc_first = false;
  int seq_pos = proc_first ? 2 : 1;
  SortArgs s{proc_first ? a[1] : a[0], proc_first ? a[0] : a[1]};
  arg_proc(who, 3 - seq_pos, s.less);
  if (!is_vector(s.seq) && list_length(s.seq) < 0) list_arg_error(who, seq_pos, "a list or vector", s.seq);
  return s;
}

// Elements of a list or vector copied into fresh GC memory.
static Value *elements_of(Value seq, int64_t *n) {
  if (is_vector(seq)) {
    *n = as<Vector>(seq)->len;
    Value *items = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(*n + 1)));
    copy_values(items, as<Vector>(seq)->items, *n);
    return items;
  }
  *n = list_length(seq);
  Value *items = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(*n + 1)));
  int64_t i = 0;
  for (Value l = seq; is_pair(l); l = cdr(l)) items[i++] = car(l);
  return items;
}

// A new sorted sequence of the same kind.
static Value sort_copy(const char *who, Value *a, bool proc_first) {
  SortArgs s = sort_args(who, a, proc_first);
  int64_t n;
  Value *items = elements_of(s.seq, &n);
  items = merge_sort(items, n, s.less);
  if (is_vector(s.seq)) {
    Value v = make_vector(n, NIL);
    copy_values(as<Vector>(v)->items, items, n);
    return v;
  }
  return list_from(items, n);
}

// Sorts in place: a vector's slots, or a list's cars. Returns the sequence.
static Value sort_in_place(const char *who, Value *a, bool proc_first) {
  SortArgs s = sort_args(who, a, proc_first);
  int64_t n;
  Value *items = elements_of(s.seq, &n);
  items = merge_sort(items, n, s.less);
  if (is_vector(s.seq)) {
    copy_values(as<Vector>(s.seq)->items, items, n);
  } else {
    // `less?` may have cut the list short with set-cdr!; stop at its end.
    int64_t i = 0;
    for (Value l = s.seq; is_pair(l) && i < n; l = cdr(l)) as<Pair>(l)->car = items[i++];
  }
  return s.seq;
}

static Value b_sort(int, Value *a) { return sort_copy("sort", a, false); }
static Value b_sort_bang(int, Value *a) { return sort_in_place("sort!", a, false); }
static Value b_list_sort(int, Value *a) { return sort_copy("list-sort", a, true); }
static Value b_vector_sort(int, Value *a) { return sort_copy("vector-sort", a, true); }
static Value b_vector_sort_bang(int, Value *a) { return sort_in_place("vector-sort!", a, false); }

static BuiltinRegistrar sort_registrar([] {
  defbuiltin("sort", 2, 2, b_sort,
             "(sort seq less?): a new list or vector of seq's elements, stably sorted.");
  defbuiltin("sort!", 2, 2, b_sort_bang, "(sort! seq less?): sorts list or vector seq in place, stably.");
  defbuiltin("list-sort", 2, 2, b_list_sort, "(list-sort less? l): a new stably sorted list (SRFI-132).");
  defbuiltin("vector-sort", 2, 2, b_vector_sort,
             "(vector-sort less? v): a new stably sorted vector (SRFI-132).");
  defbuiltin("vector-sort!", 2, 2, b_vector_sort_bang,
             "(vector-sort! v less?): sorts v in place (SRFI-132).");
});

}  // namespace kiln

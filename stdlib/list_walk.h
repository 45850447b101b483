// list_walk.h — helpers shared by the list, vector and hash-table builtins.
//
// Invariant: every Value these helpers hold lives either in GC memory or in a
// member array of an object on the C++ stack (which the collector scans
// conservatively); the objects are non-copyable so no pointer to such an array
// can outlive it. Builtins copy what they need out of their argv before
// calling Lisp code. A ListWalk's position is re-entry safe (its frame may be
// resumed from a continuation's copy), so the builtins walking lists call Lisp
// with call_procedure, without a reentry barrier (continuation.h).
#pragma once
#include "runtime/eval.h"
#include "runtime/list_builder.h"
#include "stdlib/builtins.h"

namespace kiln {

// type_error for a list-like argument. A circular list is described rather
// than written: "got a circular list" says what is wrong with it.
[[noreturn]] inline void list_arg_error(const char *who, int pos, const char *expected, Value v) {
  if (is_circular(v)) throw_errorf("{}: argument {} must be {}, got a circular list", who, pos, expected);
  type_error(who, pos, expected, v);
}

[[noreturn]] inline void not_proper_list(const char *who, int pos, Value v) {
  list_arg_error(who, pos, "a proper list", v);
}

// Number of pairs before the first non-pair (for range errors on improper lists).
inline int64_t count_pairs(Value v) {
  int64_t n = 0;
  for (; is_pair(v); v = cdr(v)) {
    if ((++n & 0xFFFF) == 0) check_interrupt();
  }
  return n;
}

// A Value array of n slots: on the stack when small, in GC memory otherwise.
class ValueBuf {
 public:
  explicit ValueBuf(int64_t n)
      : data_(n <= kLocal ? local_ : static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(n)))) {}
  ValueBuf(const ValueBuf &) = delete;
  ValueBuf &operator=(const ValueBuf &) = delete;
  Value *data() { return data_; }
  Value &operator[](int64_t i) { return data_[i]; }
  // Before changing slots that must survive a re-entry (a walk's position):
  // slots in GC memory move to a fresh array, so a frame resumed from a
  // continuation's copy still sees the array as it was at the capture.
  void detach(int64_t n) {
    if (data_ == local_) return;
    Value *fresh = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(n)));
    for (int64_t i = 0; i < n; i++) fresh[i] = data_[i];
    data_ = fresh;
  }

 private:
  static constexpr int64_t kLocal = 8;
  Value local_[kLocal];
  Value *data_;
};

// Walks n lists in step (map, for-each, folds, any, every ...), stopping at the
// end of the shortest. An improper list is an error naming its argument
// position; a circular list is allowed when some other list is finite.
class ListWalk {
 public:
  // lists[i] is argument number first_pos + i of WHO.
  ListWalk(const char *who, int first_pos, int n, const Value *lists);
  ListWalk(const ListWalk &) = delete;
  ListWalk &operator=(const ListWalk &) = delete;
  // Stores the next element of each list in out[0..n) and returns true, or
  // returns false when some list is exhausted.
  bool next(Value *out);
  // Number of steps the walk will make (the length of the shortest finite list).
  int64_t steps() const { return steps_; }

 private:
  ValueBuf cur_;
  int n_;
  int64_t steps_;
};

}  // namespace kiln

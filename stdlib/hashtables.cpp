// hashtables.cpp — SRFI-69 hash tables (runtime/hashtable.h underneath).
//
// Invariant: hash-table-keys, -values, ->alist, -walk and -fold visit entries
// in insertion order (a key keeps its place when its value is replaced, and
// goes to the end when deleted and added again), so output built from a table
// is deterministic. Procedures that run Lisp code for each entry work on a
// snapshot taken first, so the code may modify the table while it runs.
#include "runtime/equal.h"
#include "runtime/eval_internal.h"
#include "runtime/hashtable.h"
#include "runtime/printer.h"
#include "stdlib/list_walk.h"

namespace kiln {

static Value table_arg(const char *who, int pos, Value v) {
  if (!is_hashtable(v)) type_error(who, pos, "a hash table", v);
  return v;
}

// The key comparison a make-hash-table argument names: the builtins eq?,
// eqv?, equal? and string=? (strings compare the same under equal?).
static HashKind kind_from_equivalence(const char *who, int pos, Value proc) {
  if (is_builtin(proc)) {
    std::string_view name = as<Builtin>(proc)->name;
    if (name == "eq?") return HASH_EQ;
    if (name == "eqv?") return HASH_EQV;
    if (name == "equal?" || name == "string=?") return HASH_EQUAL;
  }
  type_error(who, pos, "one of eq?, eqv?, equal? or string=?", proc);
}

// (make-hash-table [equivalence [hash-function]]) — SRFI-69. The hash function
// is checked but not used: each equivalence has its own consistent hash. A
// lone integer argument is taken as a size hint (as in Guile).
static Value b_make_hash_table(int argc, Value *a) {
  if (argc == 0) return make_hashtable(HASH_EQUAL);
  if (argc == 1 && is_int(a[0])) return make_hashtable(HASH_EQUAL, arg_index("make-hash-table", 1, a[0]));
  HashKind kind = kind_from_equivalence("make-hash-table", 1, a[0]);
  if (argc > 1) arg_proc("make-hash-table", 2, a[1]);
  return make_hashtable(kind);
}
static Value b_make_eq_table(int, Value *) { return make_hashtable(HASH_EQ); }
static Value b_make_eqv_table(int, Value *) { return make_hashtable(HASH_EQV); }
static Value b_make_equal_table(int, Value *) { return make_hashtable(HASH_EQUAL); }

static Value b_hash_table_p(int, Value *a) { return boolv(is_hashtable(a[0])); }

[[noreturn]] static void key_not_found(const char *who, Value key) {
  throw_errorf("{}: key not found: {}", who, error_value_string(key));
}

// (hash-table-ref ht key [failure-thunk [success-proc]])
static Value b_hash_table_ref(int argc, Value *a) {
  Value ht = table_arg("hash-table-ref", 1, a[0]);
  Value key = a[1];
  Value failure = argc > 2 ? arg_proc("hash-table-ref", 3, a[2]) : NOVALUE;
  Value success = argc > 3 ? arg_proc("hash-table-ref", 4, a[3]) : NOVALUE;
  Value val;
  if (hashtable_lookup(ht, key, &val)) return success == NOVALUE ? val : call_procedure(success, 1, &val);
  if (failure == NOVALUE) key_not_found("hash-table-ref", key);
  return call_procedure(failure, 0, nullptr);
}

static Value b_hash_table_ref_default(int, Value *a) {
  Value ht = table_arg("hash-table-ref/default", 1, a[0]);
  Value val;
  return hashtable_lookup(ht, a[1], &val) ? val : a[2];
}

static Value b_hash_table_set(int, Value *a) {
  hashtable_set(table_arg("hash-table-set!", 1, a[0]), a[1], a[2]);
  return UNSPEC;
}

static Value b_hash_table_delete(int, Value *a) {
  hashtable_delete(table_arg("hash-table-delete!", 1, a[0]), a[1]);
  return UNSPEC;
}

static Value contains(const char *who, Value *a) {
  Value val;
  return boolv(hashtable_lookup(table_arg(who, 1, a[0]), a[1], &val));
}
static Value b_hash_table_contains(int, Value *a) { return contains("hash-table-contains?", a); }
static Value b_hash_table_exists(int, Value *a) { return contains("hash-table-exists?", a); }

static Value b_hash_table_count(int, Value *a) {
  return make_int(hashtable_count(table_arg("hash-table-count", 1, a[0])));
}
static Value b_hash_table_size(int, Value *a) {
  return make_int(hashtable_count(table_arg("hash-table-size", 1, a[0])));
}

// A list built from each live entry, in insertion order.
template <class F> static Value collect(Value ht, F make) {
  ListBuilder b;
  Value k, v;
  for (int64_t i = 0; i < hashtable_slot_limit(ht); i++)
    if (hashtable_slot(ht, i, &k, &v)) b.push(make(k, v));
  return b.head;
}

static Value b_hash_table_keys(int, Value *a) {
  return collect(table_arg("hash-table-keys", 1, a[0]), [](Value k, Value) { return k; });
}
static Value b_hash_table_values(int, Value *a) {
  return collect(table_arg("hash-table-values", 1, a[0]), [](Value, Value v) { return v; });
}
static Value b_hash_table_to_alist(int, Value *a) {
  return collect(table_arg("hash-table->alist", 1, a[0]), [](Value k, Value v) { return cons(k, v); });
}

// (hash-table-update! ht key proc [failure-thunk]): stores (proc old-value).
static Value b_hash_table_update(int argc, Value *a) {
  const char *who = "hash-table-update!";
  Value ht = table_arg(who, 1, a[0]);
  Value key = a[1];
  Value proc = arg_proc(who, 3, a[2]);
  Value failure = argc > 3 ? arg_proc(who, 4, a[3]) : NOVALUE;
  Value old;
  if (!hashtable_lookup(ht, key, &old)) {
    if (failure == NOVALUE) key_not_found(who, key);
    old = call_procedure(failure, 0, nullptr);
  }
  Value updated = call_procedure(proc, 1, &old);
  hashtable_set(ht, key, updated);  // looked up again: proc may have changed the table
  return UNSPEC;
}

// (hash-table-update!/default ht key proc default)
static Value b_hash_table_update_default(int, Value *a) {
  const char *who = "hash-table-update!/default";
  Value ht = table_arg(who, 1, a[0]);
  Value key = a[1];
  Value proc = arg_proc(who, 3, a[2]);
  Value old;
  if (!hashtable_lookup(ht, key, &old)) old = a[3];
  Value updated = call_procedure(proc, 1, &old);
  hashtable_set(ht, key, updated);
  return UNSPEC;
}

// The live entries as a GC array k0 v0 k1 v1 ..., so Lisp code run per entry
// may modify the table.
static Value *snapshot(Value ht, int64_t *n) {
  Value *items = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(2 * hashtable_count(ht) + 1)));
  int64_t got = 0;
  Value k, v;
  for (int64_t i = 0; i < hashtable_slot_limit(ht); i++)
    if (hashtable_slot(ht, i, &k, &v)) {
      items[2 * got] = k;
      items[2 * got + 1] = v;
      got++;
    }
  *n = got;
  return items;
}

// (hash-table-walk ht proc): (proc key value) for each entry.
static Value b_hash_table_walk(int, Value *a) {
  Value ht = table_arg("hash-table-walk", 1, a[0]);
  Value proc = arg_proc("hash-table-walk", 2, a[1]);
  int64_t n;
  Value *items = snapshot(ht, &n);
  for (int64_t i = 0; i < n; i++) call_procedure(proc, 2, items + 2 * i);
  return UNSPEC;
}

// (hash-table-fold ht f init): (f key value acc) for each entry.
static Value b_hash_table_fold(int, Value *a) {
  Value ht = table_arg("hash-table-fold", 1, a[0]);
  Value f = arg_proc("hash-table-fold", 2, a[1]);
  Value acc = a[2];
  int64_t n;
  Value *items = snapshot(ht, &n);
  for (int64_t i = 0; i < n; i++) {
    Value args[3] = {items[2 * i], items[2 * i + 1], acc};
    acc = call_procedure(f, 3, args);
  }
  return acc;
}

static Value b_hash_table_clear(int, Value *a) {
  hashtable_clear(table_arg("hash-table-clear!", 1, a[0]));
  return UNSPEC;
}

// (hash-table-copy ht [mutable?]): tables are always mutable here.
static Value b_hash_table_copy(int, Value *a) {
  return hashtable_copy(table_arg("hash-table-copy", 1, a[0]));
}

// (hash-table-merge! ht1 ht2): adds ht2's entries to ht1 (ht2 wins on clashes).
static Value b_hash_table_merge(int, Value *a) {
  Value dst = table_arg("hash-table-merge!", 1, a[0]);
  Value src = table_arg("hash-table-merge!", 2, a[1]);
  int64_t n;
  Value *items = snapshot(src, &n);
  for (int64_t i = 0; i < n; i++) hashtable_set(dst, items[2 * i], items[2 * i + 1]);
  return dst;
}

// (alist->hash-table alist [equivalence [hash-function]]): the first
// association of a repeated key wins (SRFI-69).
static Value b_alist_to_hash_table(int argc, Value *a) {
  const char *who = "alist->hash-table";
  Value alist = a[0];
  if (list_length(alist) < 0) list_arg_error(who, 1, "a list of pairs", alist);
  HashKind kind = argc > 1 ? kind_from_equivalence(who, 2, a[1]) : HASH_EQUAL;
  if (argc > 2) arg_proc(who, 3, a[2]);
  Value ht = make_hashtable(kind);
  Value dummy;
  for (Value l = alist; is_pair(l); l = cdr(l)) {
    Value entry = car(l);
    if (!is_pair(entry)) list_arg_error(who, 1, "a list of pairs", alist);
    if (!hashtable_lookup(ht, car(entry), &dummy)) hashtable_set(ht, car(entry), cdr(entry));
  }
  return ht;
}

// (hash obj [bound]) and friends: a non-negative integer, below bound if given.
static Value bounded_hash(const char *who, int argc, Value *a, uint64_t h) {
  uint64_t bound = uint64_t(kFixnumMax);
  if (argc > 1) {
    int64_t b = arg_int(who, 2, a[1]);
    if (b <= 0) type_error(who, 2, "a positive integer", a[1]);
    bound = uint64_t(b);
  }
  return make_int(int64_t(h % bound));
}
static Value b_hash(int argc, Value *a) { return bounded_hash("hash", argc, a, equal_hash(a[0])); }
static Value b_string_hash(int argc, Value *a) {
  arg_string("string-hash", 1, a[0]);
  return bounded_hash("string-hash", argc, a, equal_hash(a[0]));
}
static Value b_hash_by_identity(int argc, Value *a) {
  return bounded_hash("hash-by-identity", argc, a, eq_hash(a[0]));
}

static BuiltinRegistrar hashtables_registrar([] {
  defbuiltin(
      "make-hash-table", 0, 3, b_make_hash_table,
      "(make-hash-table [equiv [hash]]): a new table; equiv is equal? (default), eqv?, eq? or string=?.");
  defbuiltin("make-equal-hash-table", 0, 1, b_make_equal_table,
             "(make-equal-hash-table): a table keyed by equal?.");
  defbuiltin("make-eqv-hash-table", 0, 1, b_make_eqv_table, "(make-eqv-hash-table): a table keyed by eqv?.");
  defbuiltin("make-eq-hash-table", 0, 1, b_make_eq_table, "(make-eq-hash-table): a table keyed by eq?.");
  defbuiltin("make-string-hash-table", 0, 1, b_make_equal_table,
             "(make-string-hash-table): a table keyed by string=?.");
  defbuiltin("hash-table?", 1, 1, b_hash_table_p, "(hash-table? x): #t if x is a hash table.");
  defbuiltin("hash-table-ref", 2, 4, b_hash_table_ref,
             "(hash-table-ref ht key [failure [success]]): the value for key; (failure) when absent, else an "
             "error.");
  defbuiltin("hash-table-ref/default", 3, 3, b_hash_table_ref_default,
             "(hash-table-ref/default ht key default): the value for key, or default.");
  defbuiltin("hash-table-set!", 3, 3, b_hash_table_set,
             "(hash-table-set! ht key value): stores value under key.");
  defbuiltin("hash-table-delete!", 2, 2, b_hash_table_delete,
             "(hash-table-delete! ht key): removes key if present.");
  defbuiltin("hash-table-contains?", 2, 2, b_hash_table_contains,
             "(hash-table-contains? ht key): #t if key is present.");
  defbuiltin("hash-table-exists?", 2, 2, b_hash_table_exists,
             "(hash-table-exists? ht key): #t if key is present.");
  defbuiltin("hash-table-count", 1, 1, b_hash_table_count, "(hash-table-count ht): the number of entries.");
  defbuiltin("hash-table-size", 1, 1, b_hash_table_size, "(hash-table-size ht): the number of entries.");
  defbuiltin("hash-table-keys", 1, 1, b_hash_table_keys,
             "(hash-table-keys ht): the keys, in insertion order.");
  defbuiltin("hash-table-values", 1, 1, b_hash_table_values,
             "(hash-table-values ht): the values, in the keys' insertion order.");
  defbuiltin("hash-table->alist", 1, 1, b_hash_table_to_alist,
             "(hash-table->alist ht): ((key . value) ...), in insertion order.");
  defbuiltin(
      "hash-table-update!", 3, 4, b_hash_table_update,
      "(hash-table-update! ht key proc [failure]): stores (proc value); (failure) gives a missing value.");
  defbuiltin(
      "hash-table-update!/default", 4, 4, b_hash_table_update_default,
      "(hash-table-update!/default ht key proc default): stores (proc value), default for a missing value.");
  defbuiltin("hash-table-walk", 2, 2, b_hash_table_walk,
             "(hash-table-walk ht proc): calls (proc key value) for each entry.");
  defbuiltin("hash-table-fold", 3, 3, b_hash_table_fold,
             "(hash-table-fold ht f init): folds (f key value acc) over the entries.");
  defbuiltin("hash-table-clear!", 1, 1, b_hash_table_clear, "(hash-table-clear! ht): removes every entry.");
  defbuiltin("hash-table-copy", 1, 2, b_hash_table_copy,
             "(hash-table-copy ht [mutable?]): a new table with the same entries.");
  defbuiltin("hash-table-merge!", 2, 2, b_hash_table_merge,
             "(hash-table-merge! ht1 ht2): adds ht2's entries to ht1 and returns ht1.");
  defbuiltin("alist->hash-table", 1, 3, b_alist_to_hash_table,
             "(alist->hash-table alist [equiv [hash]]): a table of the associations (first one wins).");
  defbuiltin("hash", 1, 2, b_hash, "(hash obj [bound]): a hash of obj consistent with equal?.");
  defbuiltin("string-hash", 1, 2, b_string_hash, "(string-hash s [bound]): a hash of string s.");
  defbuiltin("hash-by-identity", 1, 2, b_hash_by_identity,
             "(hash-by-identity obj [bound]): a hash consistent with eq?.");
});

}  // namespace kiln

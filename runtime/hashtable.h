// hashtable.h — Kiln's hash table object (T_HASHTABLE), SRFI-69 flavoured.
//
// Invariant: the table remembers insertion order. Entries live in one GC array
// of (key, value) pairs in the order they were first inserted; a deleted entry
// becomes a tombstone (key NOVALUE), and tombstones are squeezed out when the
// entry array is rebuilt on growth. A separate open-addressing index (linear
// probing, GC atomic memory, at most half full) maps a key's hash to its entry.
// Every Value lives in the entries array, which is ordinary (scanned) GC
// memory; the index and the cached hashes hold no pointers and are atomic.
// Lookups never call Lisp code, so the table cannot change under a lookup;
// callers that run Lisp code between steps (update!, walk) must look up again.
#pragma once
#include <cstdint>

#include "runtime/object.h"

namespace kiln {

// An index slot keeps the top half of the key's hash beside the entry number,
// so a probe rejects most non-matching slots without touching the entries.
constexpr uint64_t kEmptySlot = ~uint64_t(0);

// Which equivalence the table's keys are compared with.
enum HashKind : uint8_t { HASH_EQUAL = 0, HASH_EQV = 1, HASH_EQ = 2 };

struct HashTable {
  ObjHeader h;
  uint8_t kind;      // HashKind
  int64_t count;     // live entries
  int64_t used;      // entry slots in use, tombstones included
  int64_t cap;       // entry slots allocated
  Value *entries;    // 2*cap Values: key, value; key NOVALUE = deleted
  uint64_t *hashes;  // cap cached hashes (atomic)
  uint64_t *index;   // index_mask+1 slots: kEmptySlot, or (hash>>32)<<32 | entry number (atomic)
  int64_t index_mask;
};

inline bool is_hashtable(Value v) { return has_type(v, T_HASHTABLE); }
Value make_hashtable(HashKind kind, int64_t capacity_hint = 0);
HashKind hashtable_kind(Value ht);
int64_t hashtable_count(Value ht);

// Stores the value for `key` in *out and returns true, or returns false.
bool hashtable_lookup(Value ht, Value key, Value *out);
void hashtable_set(Value ht, Value key, Value val);
bool hashtable_delete(Value ht, Value key);  // true if the key was present
void hashtable_clear(Value ht);
Value hashtable_copy(Value ht);

// Iteration in insertion order that tolerates mutation between steps:
//   for (int64_t i = 0; i < hashtable_slot_limit(ht); i++)
//     if (hashtable_slot(ht, i, &k, &v)) ...
// Entries added during the walk are visited; deleted ones are skipped. A
// rebuild (growth) during the walk may shift later entries, so code that
// inserts while walking should walk over a snapshot (e.g. hash-table->alist).
int64_t hashtable_slot_limit(Value ht);
bool hashtable_slot(Value ht, int64_t i, Value *key, Value *val);

}  // namespace kiln

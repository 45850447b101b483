#include "runtime/hashtable.h"

#include <algorithm>

#include "runtime/equal.h"
#include "runtime/error.h"
#include "runtime/gc.h"

namespace kiln {

static constexpr int64_t kMinCap = 8;

static uint64_t key_hash(uint8_t kind, Value k) {
  switch (kind) {
  case HASH_EQ: return eq_hash(k);
  case HASH_EQV: return eqv_hash(k);
  default: return equal_hash(k);
  }
}

static bool key_equal(uint8_t kind, Value a, Value b) {
  switch (kind) {
  case HASH_EQ: return eq(a, b);
  case HASH_EQV: return eqv(a, b);
  default: return equal(a, b);
  }
}

static HashTable *ht_of(Value v) { return as<HashTable>(v); }

// Allocates empty storage for `cap` entries (and an index twice that size).
static void allocate(HashTable *t, int64_t cap) {
  t->cap = cap;
  t->used = 0;
  t->count = 0;
  t->entries = static_cast<Value *>(gc_alloc(alloc_bytes(uint64_t(cap), 2 * sizeof(Value))));
  t->hashes = static_cast<uint64_t *>(gc_alloc_atomic(alloc_bytes(uint64_t(cap), sizeof(uint64_t))));
  int64_t slots = 1;
  while (slots < 2 * cap) slots <<= 1;
  t->index = static_cast<uint64_t *>(gc_alloc_atomic(alloc_bytes(uint64_t(slots), sizeof(uint64_t))));
  for (int64_t i = 0; i < slots; i++) t->index[i] = kEmptySlot;
  t->index_mask = slots - 1;
}

static uint64_t hash_tag(uint64_t hash) { return hash & 0xFFFFFFFF00000000ull; }

static void index_insert(HashTable *t, uint64_t hash, int64_t entry) {
  int64_t slot = int64_t(hash) & t->index_mask;
  while (t->index[slot] != kEmptySlot) slot = (slot + 1) & t->index_mask;
  t->index[slot] = hash_tag(hash) | uint64_t(entry);
}

// Appends an entry without looking for an existing key.
static void append_entry(HashTable *t, Value key, Value val, uint64_t hash) {
  int64_t e = t->used++;
  t->entries[2 * e] = key;
  t->entries[2 * e + 1] = val;
  t->hashes[e] = hash;
  t->count++;
  index_insert(t, hash, e);
}

// Rebuilds into fresh storage big enough for the live entries plus room to
// grow, dropping tombstones and keeping insertion order.
static void rebuild(HashTable *t) {
  Value *old_entries = t->entries;
  uint64_t *old_hashes = t->hashes;
  int64_t old_used = t->used;
  int64_t cap = kMinCap;
  while (cap < 2 * (t->count + 1)) cap <<= 1;
  if (cap >= (int64_t(1) << 32)) throw_error("hash table too large");
  allocate(t, cap);
  for (int64_t e = 0; e < old_used; e++)
    if (old_entries[2 * e] != NOVALUE)
      append_entry(t, old_entries[2 * e], old_entries[2 * e + 1], old_hashes[e]);
}

Value make_hashtable(HashKind kind, int64_t capacity_hint) {
  HashTable *t = alloc_obj<HashTable>(T_HASHTABLE);
  t->kind = kind;
  // Only a hint: storage beyond this is allocated as entries arrive, so a
  // huge hint neither overflows `cap` nor reserves memory nobody uses.
  constexpr int64_t kMaxHint = int64_t(1) << 20;
  int64_t cap = kMinCap;
  while (cap < std::min(capacity_hint, kMaxHint)) cap <<= 1;
  allocate(t, cap);
  return from_ptr(t);
}

HashKind hashtable_kind(Value ht) { return HashKind(ht_of(ht)->kind); }
int64_t hashtable_count(Value ht) { return ht_of(ht)->count; }

// Entry number holding `key`, or -1.
static int64_t find_entry(HashTable *t, Value key, uint64_t hash) {
  int64_t slot = int64_t(hash) & t->index_mask;
  uint64_t tag = hash_tag(hash);
  for (;;) {
    uint64_t s = t->index[slot];
    if (s == kEmptySlot) return -1;
    if (hash_tag(s) == tag) {
      int64_t e = int64_t(s & 0xFFFFFFFFull);
      Value k = t->entries[2 * e];
      if (k != NOVALUE && key_equal(t->kind, k, key)) return e;
    }
    slot = (slot + 1) & t->index_mask;
  }
}

bool hashtable_lookup(Value ht, Value key, Value *out) {
  HashTable *t = ht_of(ht);
  int64_t e = find_entry(t, key, key_hash(t->kind, key));
  if (e < 0) return false;
  *out = t->entries[2 * e + 1];
  return true;
}

void hashtable_set(Value ht, Value key, Value val) {
  HashTable *t = ht_of(ht);
  uint64_t hash = key_hash(t->kind, key);
  int64_t e = find_entry(t, key, hash);
  if (e >= 0) {
    t->entries[2 * e + 1] = val;
    return;
  }
  if (t->used == t->cap) rebuild(t);
  append_entry(t, key, val, hash);
}

bool hashtable_delete(Value ht, Value key) {
  HashTable *t = ht_of(ht);
  int64_t e = find_entry(t, key, key_hash(t->kind, key));
  if (e < 0) return false;
  // The index slot keeps pointing at the tombstone so probe chains through it
  // stay intact until the next rebuild.
  t->entries[2 * e] = NOVALUE;
  t->entries[2 * e + 1] = NOVALUE;
  t->count--;
  return true;
}

void hashtable_clear(Value ht) { allocate(ht_of(ht), kMinCap); }

Value hashtable_copy(Value ht) {
  HashTable *src = ht_of(ht);
  Value copy = make_hashtable(HashKind(src->kind), 2 * src->count);
  HashTable *t = ht_of(copy);
  for (int64_t e = 0; e < src->used; e++)
    if (src->entries[2 * e] != NOVALUE)
      append_entry(t, src->entries[2 * e], src->entries[2 * e + 1], src->hashes[e]);
  return copy;
}

int64_t hashtable_slot_limit(Value ht) { return ht_of(ht)->used; }

bool hashtable_slot(Value ht, int64_t i, Value *key, Value *val) {
  HashTable *t = ht_of(ht);
  if (i < 0 || i >= t->used || t->entries[2 * i] == NOVALUE) return false;
  *key = t->entries[2 * i];
  *val = t->entries[2 * i + 1];
  return true;
}

}  // namespace kiln

// equal.h — eq?, eqv? and equal?, and a hash consistent with equal?.
//
// Invariant: equal(a, b) implies equal_hash(a) == equal_hash(b), and eqv(a, b)
// implies eqv_hash(a) == eqv_hash(b). Hashes depend only on what the matching
// predicate compares (never on addresses of objects that compare structurally),
// and Boehm GC never moves objects, so an address-based hash of an eq?-compared
// object stays valid for the object's lifetime. None of these functions
// allocate or call Lisp code, so a hash table cannot change under a lookup.
#pragma once
#include <cstdint>

#include "runtime/value.h"

namespace kiln {

// eq?: the same value word (identical object, or identical immediate).
inline bool eq(Value a, Value b) { return a == b; }

// eqv?: eq?, plus integers by value (boxed T_INT64 included) and floats by bit
// pattern, so (eqv? +nan.0 +nan.0) is #t and (eqv? 0.0 -0.0) is #f.
bool eqv(Value a, Value b);

// equal?: eqv?, plus strings by bytes, pairs and vectors element by element
// (deep nesting and long lists take memory, not C stack), and any other
// heap type through g_type_hooks[type].equal when its owner registered one
// (tensors: shape and bits). Terminates on cyclic structures, which are equal
// when they unfold to the same infinite tree (R7RS): #0=(1 . #0#) equals
// #1=(1 1 . #1#).
bool equal(Value a, Value b);

uint64_t eq_hash(Value v);
uint64_t eqv_hash(Value v);
// Looks at a bounded prefix (64 nodes) of lists and vectors, so hashing is O(1)
// for them apart from strings, whose bytes are all hashed, and terminates on
// cyclic ones. The prefix is of the unfolded tree, so values equal? as cyclic
// structures hash alike too.
uint64_t equal_hash(Value v);

}  // namespace kiln

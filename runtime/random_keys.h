// random_keys.h — counter-based random numbers: tensor-rand, tensor-randn,
// random-split and dropout's mask, the same on every path (docs/tensors.md,
// "Random numbers and keys").
//
// Invariant: element i of a draw is a pure function of the 64-bit key and i,
// computed by the formulas below and nothing else, so the eager builtins, the
// graph interpreter (k_random) and compiled kernels (Emitter::random, which
// instantiates the same templates on its own integer and double types) give the
// same bits, whatever the thread count or the order elements are computed in.
//
//   splitmix_at(key, i) = mix(key + (i + 1) * kGamma)   (mod 2^64): output i of
//                         SplitMix64 seeded with key, so the seeded forms of
//                         tensor-rand and tensor-randn keep their old numbers
//   uniform(key, i)     = (splitmix_at(key, i) >> 11) * 2^-53, in [0, 1)
//   normal(key, i)      = Box-Muller on the pair p = i / 2: u1 = 1 - uniform(key, 2p),
//                         u2 = uniform(key, 2p + 1), r = sqrt(-2 log u1),
//                         r cos(2 pi u2) for even i, r sin(2 pi u2) for odd i
//   split(key, j)       = splitmix_at(mix(key ^ kSplitSalt), j) >> 11: an integer
//                         in [0, 2^53), so a derived key is exact as a double
//                         (the form a traced key takes)
//
// A key is an integer in [-2^63, 2^63): an exact integer, or a double with an
// integral value (a traced key, or a key a compiled kernel returned); it is used
// as its two's-complement bit pattern.
#pragma once
#include <cstdint>

#include "runtime/value.h"

namespace kiln {

// What a Random graph node draws (kept in its `axis`); Dropout draws Uniform
// numbers but names `dropout` in a bad key's error.
enum class RandomKind : int8_t { Uniform, Normal, Split, Dropout };
// "uniform", "normal", "split", "dropout": the kind as graph-ir and graph-dot show it.
const char *random_kind_name(RandomKind kind);

namespace random_formula {

constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kMix1 = 0xBF58476D1CE4E5B9ull;
constexpr uint64_t kMix2 = 0x94D049BB133111EBull;
constexpr uint64_t kSplitSalt = 0x6A09E667F3BCC909ull;  // the first 64 bits of frac(sqrt(2))
constexpr double kTwoPi = 6.283185307179586;
constexpr double kTwoPow53 = 0x1.0p53;

// U is uint64_t or a libgccjit wrapper with the same operators (wrapping
// unsigned arithmetic, logical right shifts).
template <class U> inline U mix(U z) {
  z = (z ^ (z >> 30)) * kMix1;
  z = (z ^ (z >> 27)) * kMix2;
  return z ^ (z >> 31);
}
template <class U> inline U splitmix_at(U key, U i) { return mix(key + (i + uint64_t(1)) * kGamma); }
template <class U> inline U split_at(U key, U j) { return splitmix_at(mix(key ^ kSplitSalt), j) >> 11; }

}  // namespace random_formula

inline double random_uniform(uint64_t key, uint64_t i) {
  return double(int64_t(random_formula::splitmix_at(key, i) >> 11)) * 0x1.0p-53;
}
double random_normal(uint64_t key, uint64_t i);
inline uint64_t random_split(uint64_t key, uint64_t j) { return random_formula::split_at(key, j); }

// The key a double stands for: false when d is not an integer in [-2^63, 2^63)
// (NaN and infinities included).
bool random_key_of_double(double d, uint64_t &key);
// A KEY argument: an exact integer in the 64-bit range, or an integral double;
// else the key error below (argument `pos` of `who`).
uint64_t arg_random_key(const char *who, int pos, Value v);
// `tensor-rand: argument 2 must be an integer key, got 1.5`: the one message for
// a bad key, eager, interpreted or from a compiled kernel.
[[noreturn]] void random_key_error(RandomKind kind, double key);
[[noreturn]] void random_key_error_at(const char *who, int pos, Value key);

// random-split's N (a positive integer) and dropout's RATE (a number in [0, 1)),
// checked with the builtins' messages, for the builtins and the tracer alike.
int64_t random_split_count(Value n);
double dropout_rate(Value rate);

// out[i] = draw i of `kind` from key for i in [lo, hi) (Split: the derived keys
// as doubles; Dropout: uniform). Threaded in chunks; each element alone.
void k_random(RandomKind kind, uint64_t key, double *out, int64_t lo, int64_t hi);

}  // namespace kiln

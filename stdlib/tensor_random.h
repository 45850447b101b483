// tensor_random.h — the seeded random fills behind tensor-rand and tensor-randn,
// shared with the initialisers of the training library (training_ops.cpp), so
// (he-normal SHAPE SEED) is a scaled (tensor-randn SHAPE SEED), bit for bit.
//
// Invariant: the same seed gives the same numbers on every machine: element i
// is a fixed function of the seed (a key) and i (runtime/random_keys.h).
#pragma once
#include <cstdint>

#include "runtime/tensor.h"

namespace kiln {

// Every element of t: uniform in [0, 1) (tensor-rand).
void fill_uniform(Tensor *t, uint64_t seed);
// Every element of t: standard normal, Box-Muller (tensor-randn).
void fill_normal(Tensor *t, uint64_t seed);

}  // namespace kiln

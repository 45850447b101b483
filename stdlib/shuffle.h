// shuffle.h — the one seeded shuffle of the training library (docs/data-files.md).
//
// Invariant: the order depends on N and SEED only, the same on every machine:
// 0..N-1 shuffled by Fisher-Yates from the last place down, place i swapped
// with place j = SplitMix64(SEED).below(i + 1) for i = N-1, ..., 1.
// `minibatches` cuts this order into batches and `random-permutation` returns
// it whole, so the two agree for the same SEED.
#pragma once
#include <cstdint>

namespace kiln {

// The shuffled indices in pointer-free GC memory (out of memory is Kiln's
// error); polls for Ctrl-C.
int64_t *shuffled_indices(int64_t n, uint64_t seed);

}  // namespace kiln

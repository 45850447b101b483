// shuffle.cpp — shuffled_indices (shuffle.h) and (minibatches N BATCH SEED).
#include "stdlib/shuffle.h"

#include <utility>

#include "runtime/eval.h"
#include "runtime/gc.h"
#include "runtime/number.h"
#include "stdlib/builtins.h"

namespace kiln {

int64_t *shuffled_indices(int64_t n, uint64_t seed) {
  auto *p = static_cast<int64_t *>(gc_alloc_atomic(alloc_bytes(uint64_t(n), sizeof(int64_t))));
  for (int64_t i = 0; i < n; i++) {
    if ((i & 0xffff) == 0) check_interrupt();
    p[i] = i;
  }
  SplitMix64 rng(seed);
  for (int64_t i = n - 1; i > 0; i--) {
    if ((i & 0xffff) == 0) check_interrupt();
    std::swap(p[i], p[rng.below(uint64_t(i + 1))]);
  }
  return p;
}

namespace {

// (minibatches N BATCH SEED ['drop-last]): the shuffled order cut into lists
// of BATCH indices, the last one shorter when BATCH does not divide N, or left
// out with 'drop-last (every batch then has the same size, as PyTorch's
// DataLoader(drop_last=True) gives). Built from the end so that every list is
// consed in order.
Value b_minibatches(int argc, Value *argv) {
  int64_t n = arg_index("minibatches", 1, argv[0]);
  if (!is_int(argv[1]) || int_of(argv[1]) < 1) type_error("minibatches", 2, "a positive integer", argv[1]);
  int64_t batch = int_of(argv[1]);
  uint64_t seed = uint64_t(arg_int("minibatches", 3, argv[2]));
  if (argc > 3 && argv[3] != intern("drop-last"))
    type_error("minibatches", 4, "the symbol drop-last", argv[3]);
  bool drop_last = argc > 3;
  int64_t *p = shuffled_indices(n, seed);
  Value batches = NIL;
  int64_t end = drop_last ? n / batch * batch : n;
  while (end > 0) {
    int64_t start = (end - 1) / batch * batch;
    Value b = NIL;
    for (int64_t i = end - 1; i >= start; i--) {
      if ((i & 0xffff) == 0) check_interrupt();
      b = cons(make_int(p[i]), b);
    }
    batches = cons(b, batches);
    end = start;
  }
  return batches;
}

BuiltinRegistrar shuffle_registrar([] {
  defbuiltin("minibatches", 3, 4, b_minibatches,
             "(minibatches N BATCH SEED ['drop-last]): 0..N-1 in a shuffled order (Fisher-Yates over "
             "SplitMix64(SEED)) cut into lists of BATCH indices, the last one shorter when BATCH does not "
             "divide N, or left out with 'drop-last.");
});

}  // namespace
}  // namespace kiln

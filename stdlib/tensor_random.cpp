// tensor_random.cpp — tensor-rand, tensor-randn, random-split and dropout
// (docs/tensors.md, "Random numbers and keys"), eager and, given a traced key,
// recorded as Random nodes (compiler/trace.cpp).
//
// Invariant: every number comes from k_random (runtime/random_keys.h), so an
// eager draw, the graph interpreter and a compiled kernel agree to the bit for
// the same key, and dropout computes x * (u >= RATE ? 1/(1-RATE) : 0.0) for each
// element, the steps its graph records.
#include "stdlib/tensor_random.h"

#include "runtime/args.h"
#include "runtime/printer.h"
#include "runtime/random_keys.h"
#include "runtime/tensor_shapes.h"
#include "stdlib/builtins.h"
#include "stdlib/tensor_args.h"

namespace kiln {

void fill_uniform(Tensor *t, uint64_t seed) {
  double *d = t->data;
  fill_in_chunks(t->size,
                 [d, seed](int64_t lo, int64_t hi) { k_random(RandomKind::Uniform, seed, d, lo, hi); });
}

void fill_normal(Tensor *t, uint64_t seed) {
  double *d = t->data;
  fill_in_chunks(t->size,
                 [d, seed](int64_t lo, int64_t hi) { k_random(RandomKind::Normal, seed, d, lo, hi); });
}

namespace {

Value b_tensor_rand(int argc, Value *argv) {
  if (Value f = foreign_call(Composite::Rand, argc, argv); f != NOVALUE) return f;
  Shape s = arg_shape("tensor-rand", 1, argv[0]);
  uint64_t key = arg_random_key("tensor-rand", 2, argv[1]);
  Tensor *t = alloc_tensor(s);
  fill_uniform(t, key);
  return from_ptr(t);
}

Value b_tensor_randn(int argc, Value *argv) {
  if (Value f = foreign_call(Composite::Randn, argc, argv); f != NOVALUE) return f;
  Shape s = arg_shape("tensor-randn", 1, argv[0]);
  uint64_t key = arg_random_key("tensor-randn", 2, argv[1]);
  Tensor *t = alloc_tensor(s);
  fill_normal(t, key);
  return from_ptr(t);
}

Value b_random_split(int argc, Value *argv) {
  if (Value f = foreign_call(Composite::RandomSplit, argc, argv); f != NOVALUE) return f;
  uint64_t key = arg_random_key("random-split", 1, argv[0]);
  int64_t n = random_split_count(argv[1]);
  Value out = NIL;
  for (int64_t j = n - 1; j >= 0; j--) out = cons(make_int(int64_t(random_split(key, uint64_t(j)))), out);
  return out;
}

Value b_dropout(int argc, Value *argv) {
  if (Value f = foreign_call(Composite::Dropout, argc, argv); f != NOVALUE) return f;
  Operand x;
  operand("dropout", 1, argv[0], x);
  double rate = dropout_rate(argv[1]);
  uint64_t key = arg_random_key("dropout", 3, argv[2]);
  if (rate == 0.0) return argv[0];
  double scale = 1.0 / (1.0 - rate);
  int64_t n = x.shape.size();
  Tensor *t = alloc_tensor(x.shape);
  double *d = t->data;
  const double *src = x.data;
  fill_in_chunks(n, [=](int64_t lo, int64_t hi) {
    k_random(RandomKind::Dropout, key, d, lo, hi);
    for (int64_t i = lo; i < hi; i++) d[i] = src[i] * (d[i] >= rate ? scale : 0.0);
  });
  if (is_number(argv[0])) return make_double(d[0]);
  return from_ptr(t);
}

BuiltinRegistrar tensor_random_registrar([] {
  defbuiltin(Composite::Rand, 2, 2, b_tensor_rand,
             "(tensor-rand SHAPE KEY): uniform [0,1) numbers, element i a function of KEY and i "
             "(SplitMix64 output i); KEY may be traced.");
  defbuiltin(Composite::Randn, 2, 2, b_tensor_randn,
             "(tensor-randn SHAPE KEY): standard normal numbers (Box-Muller over tensor-rand's); KEY may "
             "be traced.");
  defbuiltin(Composite::RandomSplit, 2, 2, b_random_split,
             "(random-split KEY N): a list of N new keys derived from KEY (integers below 2^53).");
  defbuiltin(Composite::Dropout, 3, 3, b_dropout,
             "(dropout T RATE KEY): each element kept with probability 1-RATE and scaled by "
             "1/(1-RATE), else 0; RATE 0 gives T itself.");
});

}  // namespace

}  // namespace kiln

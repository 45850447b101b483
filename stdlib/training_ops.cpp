// training_ops.cpp — the C++ side of the training library's ops (SPEC §13-14,
// docs/training.md, docs/models.md): the seeded initialisers and
// random-permutation, and the %-helpers stdlib/training.lisp and models.lisp
// call to check their arguments, so their composites (softmax, log-softmax,
// cross-entropy, one-hot, mse, linear, layer-norm, attention) raise errors that
// name them and say what is wrong, eagerly and while tracing alike.
//
// Invariant: the helpers look only at shapes and at concrete argument values and
// never record anything. They accept symbolic values wherever a tensor goes:
// shapes are known while tracing, and the values are checked where the graph
// runs, by the nodes the composites record (tensor-take's index check).
#include <cmath>
#include <utility>

#include "compiler/trace.h"
#include "runtime/eval.h"
#include "runtime/gc.h"
#include "runtime/number.h"
#include "runtime/tensor.h"
#include "runtime/tensor_shapes.h"
#include "stdlib/builtins.h"
#include "stdlib/shuffle.h"
#include "stdlib/tensor_args.h"
#include "stdlib/tensor_random.h"

namespace kiln {
namespace {

// The shape of a tensor or symbolic value, and of a number (rank 0) when
// `numbers` is set. Raises WHO's type error for anything else.
Shape shape_of(const char *who, int pos, Value v, bool numbers) {
  Shape s;
  bool number = false;
  if (is_tensor(v)) return tensor_of(v)->shape;
  if (symbolic_shape(v, s, number) && (numbers || !number)) return s;
  if (numbers && is_number(v)) return s;
  type_error(who, pos, numbers ? "a number or a tensor" : "a tensor", v);
}

// WHO, the name of the op a helper checks for (argument 1 of HELPER).
// (The UTF-8 text of a string is NUL-terminated, narrow or wide.)
const char *who_of(const char *helper, Value v) {
  return string_view_of(from_ptr(arg_string(helper, 1, v))).data();
}

// ---- argument checks for stdlib/training.lisp --------------------------------------

// (%tensor-axis WHO X AXIS): AXIS (#f: the last) resolved for X, a tensor or
// symbolic value; tensor_axis's message otherwise.
Value b_tensor_axis_helper(int, Value *argv) {
  const char *who = who_of("%tensor-axis", argv[0]);
  Shape s = shape_of(who, 1, argv[1], false);
  return make_int(tensor_axis(who, 2, argv[2] == FALSE_V ? make_int(-1) : argv[2], s));
}

// (%check-same-shape WHO A B): numbers, tensors or symbolic values of one shape.
Value b_check_same_shape(int, Value *argv) {
  const char *who = who_of("%check-same-shape", argv[0]);
  Shape a = shape_of(who, 1, argv[1], true), b = shape_of(who, 2, argv[2], true);
  if (!(a == b)) throw_errorf("{}: the shapes differ: {} and {}", who, shape_string(a), shape_string(b));
  return TRUE_V;
}

// (%shape-of WHO POS X): X's shape as a list, () for a number; for anything but a
// number, a tensor or a symbolic value, WHO's type error for argument POS.
Value b_shape_of(int, Value *argv) {
  const char *who = who_of("%shape-of", argv[0]);
  int64_t pos = arg_index("%shape-of", 2, argv[1]);
  return shape_list(shape_of(who, int(pos), argv[2], true));
}

// (%cross-entropy-labels LOGITS LABELS) -> indices or rows, after checking that
// LOGITS is N x C and LABELS N class indices or an N x C tensor of target rows
// (the indices' values are %one-hot's to check, stdlib/tensor_select.cpp).
Value b_cross_entropy_labels(int, Value *argv) {
  constexpr const char *who = "cross-entropy";
  Shape ls = shape_of(who, 1, argv[0], false);
  if (ls.rank != 2)
    throw_errorf("{}: LOGITS must be rows of class scores (rank 2), got {}", who, describe_shape(ls));
  int64_t rows = ls.dim[0];
  Value labels = argv[1];
  Shape s;
  bool number = false;
  int64_t count;
  if (is_tensor(labels) || (symbolic_shape(labels, s, number) && !number)) {
    if (is_tensor(labels)) s = tensor_of(labels)->shape;
    if (s.rank == 2) {
      if (!(s == ls))
        throw_errorf("{}: LABELS as rows must have LOGITS' shape {}, got {}", who, shape_string(ls),
                     shape_string(s));
      return intern("rows");
    }
    if (s.rank != 1)
      throw_errorf("{}: LABELS must be {} class indices or a {} tensor of rows, got {}", who, rows,
                   shape_string(ls), describe_shape(s));
    count = s.dim[0];
  } else {
    count = is_vector(labels) ? as<Vector>(labels)->len : list_length(labels);
    if (count <= 0) type_error(who, 2, "a list, vector or tensor of class indices", labels);
  }
  if (count != rows)
    throw_errorf("{}: LABELS has {} class ind{} for {} row{}", who, count, count == 1 ? "ex" : "ices", rows,
                 rows == 1 ? "" : "s");
  return intern("indices");
}

// ---- random-permutation and the initialisers ------------------------------------

// (random-permutation N SEED): 0..N-1 shuffled by Fisher-Yates, from the last
// place down, each swap partner uniform (SplitMix64's `below`, no modulo bias):
// shuffled_indices (shuffle.h), so minibatches cuts up the same order. The work
// is in GC memory (a failed allocation is Kiln's out-of-memory error) and polls
// for Ctrl-C, as iota's list of N does.
Value b_random_permutation(int, Value *argv) {
  int64_t n = arg_index("random-permutation", 1, argv[0]);
  uint64_t seed = uint64_t(arg_int("random-permutation", 2, argv[1]));
  int64_t *p = shuffled_indices(n, seed);  // the order minibatches cuts up, too
  Value r = NIL;
  for (int64_t i = n - 1; i >= 0; i--) {
    if ((i & 0xffff) == 0) check_interrupt();
    r = cons(make_int(p[i]), r);
  }
  return r;
}

// Fans of a weight as Kiln multiplies it, (matmul X W) with W of shape
// FAN-IN x FAN-OUT: dimension 0 is fan-in, dimension 1 fan-out, and any further
// dimensions (a receptive field) multiply both, as PyTorch's
// _calculate_fan_in_and_fan_out does for its OUT x IN x ... layout.
void fans(const char *who, Value shape, double &fan_in, double &fan_out) {
  Shape s = arg_shape(who, 1, shape);
  if (s.rank < 2)
    throw_errorf("{}: SHAPE must have at least two dimensions (FAN-IN FAN-OUT ...), got {}", who,
                 error_value_string(shape));
  double field = 1;
  for (int i = 2; i < s.rank; i++) field *= double(s.dim[i]);
  fan_in = double(s.dim[0]) * field;
  fan_out = double(s.dim[1]) * field;
}

// (he-normal SHAPE SEED): normal, std sqrt(2 / fan-in) (PyTorch's
// kaiming_normal_, fan_in mode, gain for relu): std * (tensor-randn SHAPE SEED).
Value b_he_normal(int, Value *argv) {
  Shape s = arg_shape("he-normal", 1, argv[0]);
  uint64_t seed = uint64_t(arg_int("he-normal", 2, argv[1]));
  double fan_in, fan_out;
  fans("he-normal", argv[0], fan_in, fan_out);
  double std = std::sqrt(2.0 / fan_in);
  Tensor *t = alloc_tensor(s);
  fill_normal(t, seed);
  double *d = t->data;
  fill_in_chunks(t->size, [d, std](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) d[i] = std * d[i];
  });
  return from_ptr(t);
}

// (glorot-uniform SHAPE SEED): uniform in [-b, b), b = sqrt(6 / (fan-in +
// fan-out)) (PyTorch's xavier_uniform_, gain 1): b * (2u - 1) for each u of
// (tensor-rand SHAPE SEED); 2u - 1 is exact, so only the product rounds.
Value b_glorot_uniform(int, Value *argv) {
  Shape s = arg_shape("glorot-uniform", 1, argv[0]);
  uint64_t seed = uint64_t(arg_int("glorot-uniform", 2, argv[1]));
  double fan_in, fan_out;
  fans("glorot-uniform", argv[0], fan_in, fan_out);
  double bound = std::sqrt(6.0 / (fan_in + fan_out));
  Tensor *t = alloc_tensor(s);
  fill_uniform(t, seed);
  double *d = t->data;
  fill_in_chunks(t->size, [d, bound](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) d[i] = bound * (2.0 * d[i] - 1.0);
  });
  return from_ptr(t);
}

BuiltinRegistrar training_ops_registrar([] {
  defbuiltin("%tensor-axis", 3, 3, b_tensor_axis_helper);
  defbuiltin("%check-same-shape", 3, 3, b_check_same_shape);
  defbuiltin("%cross-entropy-labels", 2, 2, b_cross_entropy_labels);
  defbuiltin("%shape-of", 3, 3, b_shape_of);
  defbuiltin("random-permutation", 2, 2, b_random_permutation,
             "(random-permutation N SEED): a list of 0..N-1 in a random order (Fisher-Yates over "
             "SplitMix64(SEED)): the same order for the same seed on every machine.");
  defbuiltin("he-normal", 2, 2, b_he_normal,
             "(he-normal SHAPE SEED): normal numbers with std sqrt(2/fan-in), SHAPE (FAN-IN FAN-OUT ...) "
             "as a weight W of (matmul X W).");
  defbuiltin("glorot-uniform", 2, 2, b_glorot_uniform,
             "(glorot-uniform SHAPE SEED): uniform numbers in [-b, b), b = sqrt(6/(fan-in + fan-out)), "
             "SHAPE (FAN-IN FAN-OUT ...) as a weight W of (matmul X W).");
});

}  // namespace
}  // namespace kiln

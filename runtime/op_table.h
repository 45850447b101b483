// op_table.h — the one table of Kiln's primitive tensor ops.
//
// Invariant: every list of ops in the project is generated from the rows below,
// so no two lists can disagree or drift out of order: tensor_ops' UnaryOp and
// BinaryOp enums, the graph's Op enum and kOpInfo (op_info, op_name, op_has:
// each op's name, builtin, arity, attributes, whether gradients flow through it,
// whether its kernel checks its input, its batching rule; all here), builtin
// registration and the fused-call table (stdlib/tensor_elementwise.cpp), generic
// arithmetic on tensors (tensor_arith), the tracer's table of generic procedures
// (compiler/trace.cpp), and the dispatch of every element-wise formula
// (runtime/elementwise_formulas.h) on each path. A builtin reaches the tracer
// through its BuiltinOp (below), never through its name. What stays hand-written
// per element-wise op is its formula and, beside it, its derivative
// (elementwise_formulas.h: one template for the scalar loop, the vector loop and
// the kernel emitter, one the autodiff instantiates). docs/adding-an-op.md walks
// through one.
//
// Columns:
//   E        the enumerator (UnaryOp::E / BinaryOp::E and graph Op::E)
//   BUILTIN  the tensor builtin's Lisp name, or nullptr when there is none
//   GENERIC  the generic procedure (+, exp, ...) that applies the op to tensors
//            and symbolic values, or nullptr
//   GRAPH    the node's name in graph-ir and graph-dot
//   FUSABLE  whether nested calls of BUILTIN may run as one blocked pass
//            (runtime/fused_elementwise.h)
//   DOC      BUILTIN's doc line (,describe and ,apropos show it)
#pragma once
#include <cstdint>

// Element-wise binary arithmetic, with NumPy broadcasting. UNARY1 is the unary op
// that GENERIC means with one argument ((- x) is neg, (/ x) reciprocal), or
// Identity ((+ x) is x); FOLDS: GENERIC takes any number of arguments, folded
// from the left.
//   X(E, BUILTIN, GENERIC, GRAPH, FUSABLE, UNARY1, FOLDS, DIFF, DOC)
#define KILN_BINARY_ARITH_OPS(X)                                             \
  X(Add, "tensor-add", "+", "add", true, Identity, true, true,               \
    "(tensor-add A B): elementwise A+B with NumPy broadcasting.")            \
  X(Sub, "tensor-sub", "-", "sub", true, Neg, true, true,                    \
    "(tensor-sub A B): elementwise A-B with broadcasting.")                  \
  X(Mul, "tensor-mul", "*", "mul", true, Identity, true, true,               \
    "(tensor-mul A B): elementwise A*B with broadcasting.")                  \
  X(Div, "tensor-div", "/", "div", true, Reciprocal, true, true,             \
    "(tensor-div A B): elementwise A/B with broadcasting.")                  \
  X(Pow, "tensor-pow", "expt", "pow", true, None, false, true,               \
    "(tensor-pow A B): elementwise A^B with broadcasting.")                  \
  X(Maximum, "tensor-maximum", "max", "maximum", true, Identity, true, true, \
    "(tensor-maximum A B): elementwise maximum (NaN propagates).")           \
  X(Minimum, nullptr, "min", "minimum", false, Identity, true, true, "")

// Element-wise comparisons: 1.0 or 0.0, the masks of traced `if`s and of
// `tensor-where`. GENERIC is the numeric comparison that records one when given a
// symbolic value; eagerly those procedures stay number-only. BUILTIN compares
// tensors with broadcasting (no gradient flows through a comparison).
//   X(E, BUILTIN, GENERIC, GRAPH, DOC)
#define KILN_COMPARE_OPS(X)                                                                                 \
  X(Less, "tensor-lt", "<", "less", "(tensor-lt A B): elementwise 1.0 where A < B, else 0.0.")              \
  X(LessEqual, "tensor-le", "<=", "less-equal", "(tensor-le A B): elementwise 1.0 where A <= B, else 0.0.") \
  X(Greater, "tensor-gt", ">", "greater", "(tensor-gt A B): elementwise 1.0 where A > B, else 0.0.")        \
  X(GreaterEqual, "tensor-ge", ">=", "greater-equal",                                                       \
    "(tensor-ge A B): elementwise 1.0 where A >= B, else 0.0.")                                             \
  X(Equal, "tensor-eq", "=", "equal",                                                                       \
    "(tensor-eq A B): elementwise 1.0 where A = B, else 0.0 (NaN equals nothing).")

// Element-wise unary ops.
//   X(E, BUILTIN, GENERIC, GRAPH, FUSABLE, DIFF, DOC)
#define KILN_UNARY_OPS(X)                                                                         \
  X(Neg, "tensor-neg", nullptr, "neg", true, true, "(tensor-neg T): elementwise -x.")             \
  X(Exp, "tensor-exp", "exp", "exp", true, true, "(tensor-exp T): elementwise e^x.")              \
  X(Log, "tensor-log", "log", "log", true, true, "(tensor-log T): elementwise natural log.")      \
  X(Sqrt, "tensor-sqrt", "sqrt", "sqrt", true, true, "(tensor-sqrt T): elementwise square root.") \
  X(Tanh, "tensor-tanh", nullptr, "tanh", true, true, "(tensor-tanh T): elementwise tanh.")       \
  X(Sigmoid, "tensor-sigmoid", nullptr, "sigmoid", true, true,                                    \
    "(tensor-sigmoid T): elementwise 1/(1+e^-x).")                                                \
  X(Relu, "relu", nullptr, "relu", true, true,                                                    \
    "(relu T): elementwise x < 0 ? 0 : x (NaN and -0.0 pass through, as PyTorch).")               \
  X(Abs, "tensor-abs", "abs", "abs", true, true, "(tensor-abs T): elementwise |x|.")              \
  X(Softplus, "tensor-softplus", nullptr, "softplus", true, true,                                 \
    "(tensor-softplus T): elementwise log(1+e^x) (x itself above 20, as PyTorch).")               \
  X(Gelu, "tensor-gelu", nullptr, "gelu", true, true,                                             \
    "(tensor-gelu T): elementwise GELU, tanh form (PyTorch's gelu(approximate='tanh')).")         \
  X(Silu, "tensor-silu", nullptr, "silu", true, true,                                             \
    "(tensor-silu T): elementwise SiLU (swish), x*sigmoid(x), as PyTorch's silu: x/(1+e^-x).")    \
  X(Sin, nullptr, "sin", "sin", false, true, "")                                                  \
  X(Cos, nullptr, "cos", "cos", false, true, "")                                                  \
  X(Tan, nullptr, "tan", "tan", false, true, "")                                                  \
  X(Square, nullptr, "square", "square", false, true, "")                                         \
  X(Reciprocal, nullptr, nullptr, "reciprocal", false, true, "")                                  \
  /* 1.0 where x > 0, else 0.0: relu's gradient mask (relu'(0) = 0) */                            \
  X(ReluGrad, nullptr, nullptr, "relu-grad", false, false, "")                                    \
  /* x itself; autodiff sends nothing through it (softmax's max, stdlib/training.lisp) */         \
  X(StopGradient, "stop-gradient", nullptr, "stop-gradient", true, false,                         \
    "(stop-gradient T): T itself, but no gradient flows back through it (JAX's stop_gradient).")

// Structural ops: reductions, data movement and the nodes autodiff adds. BUILTIN
// is the tensor builtin that records the op when traced (nullptr: none; the
// tracer reads each one's argument forms), its eager code is hand-written.
// ATTRS: the node's attributes (OpAttr below: what, besides its operands, tells
// two nodes of the op apart; graph hashing, graph-ir, graph-dot and the kernel
// cache's key read them from here). CHECKS: its kernel can find a bad input at
// run time (an index out of range, a key that is not an integer) and reports it
// through a status slot (compiler/kernel_plan.cpp).
//   X(E, GRAPH, ARITY, BUILTIN, ATTRS, DIFF, CHECKS)
#define KILN_STRUCTURAL_OPS(X)                                                                 \
  X(Select, "select", 3, "tensor-where", 0, true, false)                                       \
  X(Sum, "sum", 1, "tensor-sum", 0, true, false)                                               \
  X(Mean, "mean", 1, "tensor-mean", 0, true, false)                                            \
  X(Max, "max", 1, "tensor-max", 0, true, false)                                               \
  X(SumAxis, "sum-axis", 1, nullptr, kAttrAxis | kAttrKeepdims, true, false)                   \
  X(MeanAxis, "mean-axis", 1, nullptr, kAttrAxis | kAttrKeepdims, true, false)                 \
  X(MaxAxis, "max-axis", 1, nullptr, kAttrAxis | kAttrKeepdims, true, false)                   \
  X(SumTo, "sum-to", 1, nullptr, kAttrShape, true, false)                                      \
  X(BroadcastTo, "broadcast-to", 1, nullptr, kAttrShape, true, false)                          \
  X(Matmul, "matmul", 2, "matmul", 0, true, false)                                             \
  X(Transpose, "transpose", 1, "transpose", kAttrPerm, true, false)                            \
  X(Reshape, "reshape", 1, "reshape", kAttrShape, true, false)                                 \
  X(MaxMask, "max-mask", 1, nullptr, kAttrWholeOrAxis, false, false)                           \
  X(Slice, "slice", 1, "tensor-slice", kAttrAxis | kAttrRange, true, false)                    \
  X(Pad, "pad", 1, nullptr, kAttrAxis | kAttrAt | kAttrShape, true, false)                     \
  X(Concat, "concat", 2, "concat", kAttrAxis, true, false)                                     \
  X(Argmax, "argmax", 1, "tensor-argmax", kAttrAxis, false, false)                             \
  X(Take, "take", 2, "tensor-take", kAttrAxis | kAttrIndexUse, true, true)                     \
  X(ScatterAdd, "scatter-add", 2, nullptr, kAttrAxis | kAttrIndexUse | kAttrShape, true, true) \
  X(Random, "random", 1, nullptr, kAttrRandomKind | kAttrShape, false, true)                   \
  X(Allreduce, "allreduce", 1, nullptr, kAttrReduce, true, false)                              \
  X(Loop, "loop", 2, nullptr, kAttrLoop, true, false)

namespace kiln {

// A node's attributes (compiler/graph.h, GraphNode): the fields besides its
// operands, and besides a shape inferred from them, that tell two nodes of one
// op apart. A row's ATTRS is a set of these; every reader of attributes (graph
// hashing and equality, the canonical text that keys the kernel cache, graph-ir,
// graph-dot) visits them in this order, so a new op with old attributes needs
// no edit outside its row.
enum OpAttr : uint16_t {
  kAttrAxis = 1 << 0,         // `axis`: an axis of the (first) operand
  kAttrWholeOrAxis = 1 << 1,  // `axis`: an axis, or -1 for the whole tensor
  kAttrKeepdims = 1 << 2,     // `keepdims`: the reduced axis stays, as length 1
  kAttrRange = 1 << 3,        // `offset` and the node's length along `axis`: the entries taken
  kAttrAt = 1 << 4,           // `offset`: where along `axis` the operand's entries go
  kAttrIndexUse = 1 << 5,     // `index_use`: which builtin a bad index's error names
  kAttrRandomKind = 1 << 6,   // `axis` holds a RandomKind (runtime/random_keys.h)
  kAttrReduce = 1 << 7,       // `axis` holds a ReduceKind, `offset` the leaf's signature
  kAttrPerm = 1 << 8,         // `perm`: out.dim[i] = in.dim[perm[i]]
  kAttrShape = 1 << 9,        // `shape`: the node's own, not inferred from its operands
  kAttrLoop = 1 << 10,        // `loop`: the body a Loop node runs (compiler/loop.h)
};

// How an op is batched (vmap, compiler/batching.cpp; the batch at axis 0).
enum class BatchRule : uint8_t {
  Elementwise,  // the operands lifted to the result's rank, the op recorded again
  Structural,   // its own case of batch_node (a switch -Wswitch checks)
};

enum class UnaryOp : uint8_t {
#define KILN_X(e, ...) e,
  KILN_UNARY_OPS(KILN_X)
#undef KILN_X
};

enum class BinaryOp : uint8_t {
#define KILN_X(e, ...) e,
  KILN_BINARY_ARITH_OPS(KILN_X) KILN_COMPARE_OPS(KILN_X)
#undef KILN_X
};

constexpr int kUnaryOpCount = 0
#define KILN_X(...) +1
    KILN_UNARY_OPS(KILN_X)
#undef KILN_X
    ;
constexpr int kBinaryArithCount = 0
#define KILN_X(...) +1
    KILN_BINARY_ARITH_OPS(KILN_X)
#undef KILN_X
    ;
constexpr int kBinaryOpCount = kBinaryArithCount
#define KILN_X(...) +1
    KILN_COMPARE_OPS(KILN_X)
#undef KILN_X
    ;

// What GENERIC means with one argument (KILN_BINARY_ARITH_OPS' UNARY1 column).
enum class OneArgument : uint8_t { None, Identity, Neg, Reciprocal };

struct UnaryOpRow {
  UnaryOp op;
  const char *builtin, *generic, *graph;
  bool fusable;
  bool differentiable;  // a gradient flows through it (its derivative: elementwise_formulas.h)
  const char *doc;
  BatchRule batching = BatchRule::Elementwise;
};

struct BinaryOpRow {
  BinaryOp op;
  const char *builtin, *generic, *graph;
  bool fusable;
  OneArgument one_argument;
  bool folds;
  bool comparison;
  bool differentiable;  // a gradient flows through it (its derivative: elementwise_formulas.h)
  const char *doc;
  BatchRule batching = BatchRule::Elementwise;
};

inline constexpr UnaryOpRow kUnaryOps[] = {
#define KILN_X(e, builtin, generic, graph, fusable, diff, doc) \
  {UnaryOp::e, builtin, generic, graph, fusable, diff, doc},
    KILN_UNARY_OPS(KILN_X)
#undef KILN_X
};

inline constexpr BinaryOpRow kBinaryOps[] = {
#define KILN_X(e, builtin, generic, graph, fusable, one, folds, diff, doc) \
  {BinaryOp::e, builtin, generic, graph, fusable, OneArgument::one, folds, false, diff, doc},
    KILN_BINARY_ARITH_OPS(KILN_X)
#undef KILN_X
#define KILN_X(e, builtin, generic, graph, doc) \
  {BinaryOp::e, builtin, generic, graph, true, OneArgument::None, false, true, false, doc},
        KILN_COMPARE_OPS(KILN_X)
#undef KILN_X
};

// Row i describes enumerator i: the arrays are indexed by the enums.
constexpr bool rows_in_enum_order() {
  for (int i = 0; i < kUnaryOpCount; i++)
    if (int(kUnaryOps[i].op) != i) return false;
  for (int i = 0; i < kBinaryOpCount; i++)
    if (int(kBinaryOps[i].op) != i) return false;
  return true;
}
static_assert(rows_in_enum_order(), "op table rows must follow their enums");
static_assert(sizeof(kUnaryOps) / sizeof(kUnaryOps[0]) == size_t(kUnaryOpCount));
static_assert(sizeof(kBinaryOps) / sizeof(kBinaryOps[0]) == size_t(kBinaryOpCount));

// Row i is the i-th structural op (compiler/graph.h numbers them after the
// element-wise ops).
struct StructuralOpRow {
  const char *graph;
  int arity;
  const char *builtin;
  uint16_t attrs;  // OpAttr bits
  bool differentiable;
  bool checks;  // its kernel reports a bad input at run time
  BatchRule batching = BatchRule::Structural;
};
inline constexpr StructuralOpRow kStructuralOps[] = {
#define KILN_X(e, graph, arity, builtin, attrs, diff, checks) \
  {graph, arity, builtin, uint16_t(attrs), diff, checks},
    KILN_STRUCTURAL_OPS(KILN_X)
#undef KILN_X
};
constexpr int kStructuralOpCount = int(sizeof(kStructuralOps) / sizeof(kStructuralOps[0]));

constexpr const UnaryOpRow &row(UnaryOp op) { return kUnaryOps[int(op)]; }
constexpr const BinaryOpRow &row(BinaryOp op) { return kBinaryOps[int(op)]; }

// ---- the graph's ops -------------------------------------------------------------
// One enumerator per row above: the element-wise rows in the order of BinaryOp and
// UnaryOp (so op_binary/op_unary are offsets), then the structural rows. What each
// op computes is in compiler/graph.h's table.
enum class Op : uint8_t {
  Param,
  Const,
#define KILN_X(e, ...) e,
  KILN_BINARY_ARITH_OPS(KILN_X) KILN_COMPARE_OPS(KILN_X) KILN_UNARY_OPS(KILN_X) KILN_STRUCTURAL_OPS(KILN_X)
#undef KILN_X
};
constexpr int kFirstBinary = int(Op::Const) + 1;
constexpr int kFirstUnary = kFirstBinary + kBinaryOpCount;
constexpr int kFirstStructural = kFirstUnary + kUnaryOpCount;
constexpr int kOpCount = kFirstStructural + kStructuralOpCount;
static_assert(int(Op::Add) == kFirstBinary && int(Op::Less) == kFirstBinary + kBinaryArithCount &&
                  int(Op::Neg) == kFirstUnary && int(Op::Select) == kFirstStructural,
              "Op must list the op table's rows in order");
static_assert(int(Op::Equal) - kFirstBinary == int(BinaryOp::Equal) &&
                  int(Op::ReluGrad) - kFirstUnary == int(UnaryOp::ReluGrad) && int(Op::Loop) + 1 == kOpCount,
              "element-wise Ops must mirror BinaryOp and UnaryOp");

// Case labels for every binary / unary element-wise Op (the rows are contiguous,
// the static_asserts above check it): a switch over Op that treats element-wise
// ops alike still names every enumerator, so -Wswitch (no `default:` in a switch
// over ops) flags a new structural op. Write `KILN_BINARY_OP_CASES:`. (A GNU
// case range, as GCC and Clang accept; libgccjit ties Kiln to GCC anyway.)
#define KILN_BINARY_OP_CASES case Op(kFirstBinary)... Op(kFirstUnary - 1)
#define KILN_UNARY_OP_CASES case Op(kFirstUnary)... Op(kFirstStructural - 1)

constexpr bool op_is_binary(Op op) { return int(op) >= kFirstBinary && int(op) < kFirstUnary; }
constexpr bool op_is_unary(Op op) { return int(op) >= kFirstUnary && int(op) < kFirstStructural; }
constexpr BinaryOp op_binary(Op op) { return BinaryOp(int(op) - kFirstBinary); }
constexpr UnaryOp op_unary(Op op) { return UnaryOp(int(op) - kFirstUnary); }
constexpr Op binary_op(BinaryOp b) { return Op(kFirstBinary + int(b)); }
constexpr Op unary_op(UnaryOp u) { return Op(kFirstUnary + int(u)); }
constexpr bool op_is_comparison(Op op) { return op_is_binary(op) && row(op_binary(op)).comparison; }

// What the op table says about an Op, whatever its family: one entry per
// enumerator, read from the row arrays above (so a column is stated once).
struct OpInfo {
  const char *name;     // graph-ir and graph-dot's name: "add", "relu-grad", "sum-axis"
  const char *builtin;  // the tensor builtin that records it, or nullptr
  int arity;            // number of operands: 0..3
  uint16_t attrs;       // OpAttr bits
  bool differentiable;
  bool checks;  // its kernel reports a bad input at run time
  BatchRule batching;
};
struct OpInfoTable {
  OpInfo at[kOpCount];
};
constexpr OpInfoTable make_op_info() {
  OpInfoTable t{};
  t.at[int(Op::Param)] = {"param", nullptr, 0, 0, false, false, BatchRule::Structural};
  t.at[int(Op::Const)] = {"const", nullptr, 0, 0, false, false, BatchRule::Structural};
  for (const BinaryOpRow &r : kBinaryOps)
    t.at[int(binary_op(r.op))] = {r.graph, r.builtin, 2, 0, r.differentiable, false, r.batching};
  for (const UnaryOpRow &r : kUnaryOps)
    t.at[int(unary_op(r.op))] = {r.graph, r.builtin, 1, 0, r.differentiable, false, r.batching};
  for (int i = 0; i < kStructuralOpCount; i++) {
    const StructuralOpRow &r = kStructuralOps[i];
    t.at[kFirstStructural + i] = {r.graph,          r.builtin, r.arity,   r.attrs,
                                  r.differentiable, r.checks,  r.batching};
  }
  return t;
}
inline constexpr OpInfoTable kOpInfo = make_op_info();

constexpr const OpInfo &op_info(Op op) { return kOpInfo.at[int(op)]; }
constexpr const char *op_name(Op op) { return op_info(op).name; }
constexpr int op_arity(Op op) { return op_info(op).arity; }
constexpr bool op_has(Op op, OpAttr a) { return (op_info(op).attrs & a) != 0; }

constexpr bool comparisons_not_differentiable() {
  for (const BinaryOpRow &r : kBinaryOps)
    if (r.comparison && r.differentiable) return false;
  return true;
}
static_assert(comparisons_not_differentiable(), "no gradient flows through a comparison");

// ---- builtins that hand a traced argument to the tracer ---------------------------
// A tensor builtin given a value of a foreign type (a symbolic value while
// tracing) asks that type's `call` hook (TypeHooks in runtime/object.h) through
// foreign_call (runtime/args.h), naming itself by a BuiltinOp: the Op of the row
// whose BUILTIN it is, or one of the composites below, which are builtins
// without a row of their own. The builtin's Lisp name is read from here too
// (defbuiltin(BuiltinOp, ...)), so it is written once, and renaming a builtin
// or removing an op is an edit here that the compiler follows to every user.
// tests/unit/test_builtin_ops.cpp checks that each one is bound and hands its
// own BuiltinOp to the hook.
//
// Composites: the tracer records them from other ops (tensor-clip: maximum then
// minimum), answers them itself (the shape queries) or refuses them (the last
// group: building a tensor from Lisp data, reading elements out, or calling a
// procedure per element has no graph form).
//   X(E, BUILTIN)
#define KILN_COMPOSITE_BUILTINS(X) \
  X(Clip, "tensor-clip")           \
  X(OneHot, "%one-hot")            \
  X(Min, "tensor-min")             \
  X(Var, "tensor-var")             \
  X(Rand, "tensor-rand")           \
  X(Randn, "tensor-randn")         \
  X(RandomSplit, "random-split")   \
  X(Dropout, "dropout")            \
  X(Conv2d, "conv2d")              \
  X(Conv1d, "conv1d")              \
  X(MaxPool2d, "max-pool2d")       \
  X(AvgPool2d, "avg-pool2d")       \
  X(TensorShape, "tensor-shape")   \
  X(TensorRank, "tensor-rank")     \
  X(TensorSize, "tensor-size")     \
  X(Tensor, "tensor")              \
  X(Full, "full")                  \
  X(TensorRef, "tensor-ref")       \
  X(TensorToList, "tensor->list")  \
  X(TensorItem, "tensor-item")     \
  X(TensorMap, "tensor-map")

enum class Composite : uint8_t {
#define KILN_X(e, builtin) e,
  KILN_COMPOSITE_BUILTINS(KILN_X)
#undef KILN_X
};
inline constexpr const char *kCompositeNames[] = {
#define KILN_X(e, builtin) builtin,
    KILN_COMPOSITE_BUILTINS(KILN_X)
#undef KILN_X
};
constexpr int kCompositeCount = int(sizeof(kCompositeNames) / sizeof(kCompositeNames[0]));

// What a builtin stands for: an Op (converts implicitly: foreign_call(Op::Take,
// ...)) or a Composite.
class BuiltinOp {
 public:
  constexpr BuiltinOp(Op op) : id_(uint16_t(op)) {}
  constexpr BuiltinOp(Composite c) : id_(uint16_t(kOpCount + int(c))) {}
  constexpr bool is_op() const { return id_ < kOpCount; }
  constexpr Op op() const { return Op(id_); }
  constexpr Composite composite() const { return Composite(id_ - kOpCount); }
  // The builtin's Lisp name; nullptr for an op that no builtin records.
  constexpr const char *name() const {
    return is_op() ? op_info(op()).builtin : kCompositeNames[id_ - kOpCount];
  }
  constexpr int index() const { return id_; }  // 0 .. kBuiltinOpCount - 1
  friend constexpr bool operator==(BuiltinOp, BuiltinOp) = default;

 private:
  uint16_t id_;
};
constexpr int kBuiltinOpCount = kOpCount + kCompositeCount;
constexpr BuiltinOp builtin_op_at(int index) {
  return index < kOpCount ? BuiltinOp(Op(index)) : BuiltinOp(Composite(index - kOpCount));
}

}  // namespace kiln

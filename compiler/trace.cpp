// trace.cpp — symbolic values and the hooks that record graph nodes while a
// traced procedure runs (docs/graph.md),
//
// Invariant: see trace.h. Every operation on a symbolic value either records a
// node through the Graph API (which checks shapes with the eager builtins'
// messages) or raises `graph: 'NAME' is not supported inside a traced function`.
#include "compiler/trace.h"

#include <optional>
#include <string_view>
#include <unordered_map>

#include "compiler/autodiff.h"
#include "compiler/batch_loop.h"
#include "compiler/batching.h"
#include "compiler/window_graph.h"
#include "runtime/args.h"
#include "runtime/eval.h"
#include "runtime/nodes.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"
#include "runtime/tensor_shapes.h"

namespace kiln {

namespace {

struct SymbolicValue {
  ObjHeader h;
  uint64_t trace_id;
  int32_t node;
  Shape shape;     // a copy for printing without the Graph
  bool is_number;  // its node's, for type checks without the Graph
};

// `id` is the innermost recording scope's: the trace's own, or a nested
// gradient's while its function runs (values made there refer to nodes that are
// re-recorded when it ends, so they must not be used after it). `outer` holds
// the enclosing scopes' ids, whose values stay usable inside.
struct TraceState {
  Graph *graph = nullptr;
  uint64_t id = 0;
  uint64_t outer[64];
  int depth = 0;  // entries of `outer`
  bool usable(uint64_t v) const {
    if (v == id) return true;
    for (int i = 0; i < depth; i++)
      if (outer[i] == v) return true;
    return false;
  }
};
TraceState g_trace;
uint64_t g_next_trace_id = 1;

[[noreturn]] void unsupported(std::string_view name) {
  throw_errorf("graph: '{}' is not supported inside a traced function", name);
}

Graph &active_graph(std::string_view who) {
  if (!g_trace.graph) throw_errorf("graph: '{}' got a symbolic value outside its traced function", who);
  return *g_trace.graph;
}

uint8_t g_symbolic_type = 0;  // registered by install_graph_hooks

bool is_symbolic(Value v) { return g_symbolic_type && has_type(v, g_symbolic_type); }

Value make_symbolic(int32_t node) {
  auto *s = alloc_obj<SymbolicValue>(g_symbolic_type);
  s->trace_id = g_trace.id;
  s->node = node;
  s->shape = (*g_trace.graph)[node].shape;
  s->is_number = (*g_trace.graph)[node].is_number;
  return from_ptr(s);
}

// The node standing for an operand: a symbolic value, a number or a tensor.
int32_t node_of(const char *who, int pos, Value v) {
  Graph &g = active_graph(who);
  if (is_symbolic(v)) {
    auto *s = as<SymbolicValue>(v);
    if (!g_trace.usable(s->trace_id))
      throw_errorf(
          "graph: '{}' got a symbolic value of another trace, or of a nested gradient's function that has "
          "returned",
          who);
    return s->node;
  }
  if (is_number(v)) return g.constant(number_as_double(v), true);
  if (is_tensor(v)) return g.constant_tensor(v);
  type_error(who, pos, "a number or a tensor", v);
}

// ---- the operations a traced procedure may use ------------------------------------

// The generic procedures (+, exp, <, 1+ ...) reach the tracer by the name the
// runtime's arithmetic passes its `arith` hook: the GENERIC column of the op
// table's rows (and 1+/1-), so this table is read from the rows.
enum class Kind : uint8_t { Fold, Unary, Compare };

struct GenericOp {
  Kind kind;
  Op op;  // the node op
  // Fold with one argument: what that means ((- x) is neg); Unary: 1+/1- add +1/-1.
  OneArgument one = OneArgument::Identity;
  bool folds = true;  // Fold: more than two arguments fold from the left
  int add = 0;
};

const std::unordered_map<std::string_view, GenericOp> &generic_table() {
  static const std::unordered_map<std::string_view, GenericOp> table = [] {
    std::unordered_map<std::string_view, GenericOp> t;
    for (const BinaryOpRow &r : kBinaryOps) {
      Op op = binary_op(r.op);
      if (r.generic)
        t[r.generic] =
            r.comparison ? GenericOp{Kind::Compare, op} : GenericOp{Kind::Fold, op, r.one_argument, r.folds};
    }
    for (const UnaryOpRow &r : kUnaryOps)
      if (r.generic) t[r.generic] = {Kind::Unary, unary_op(r.op)};
    t["1+"] = {Kind::Unary, Op::Add, OneArgument::None, false, 1};
    t["1-"] = {Kind::Unary, Op::Sub, OneArgument::None, false, 1};
    return t;
  }();
  return table;
}

const Shape &shape_of_operand(Value v) {
  static Shape scalar;
  if (is_symbolic(v)) return as<SymbolicValue>(v)->shape;
  if (is_tensor(v)) return tensor_of(v)->shape;
  return scalar;
}

// A tensor operand of a structural op: a number (or a symbolic number) is refused
// with the eager builtin's type error.
int32_t tensor_node_of(const char *who, int pos, Value v) {
  if (!is_symbolic(v) && !is_tensor(v)) type_error(who, pos, "a tensor", v);
  int32_t x = node_of(who, pos, v);
  if (is_number(v) || active_graph(who)[x].is_number) type_error(who, pos, "a tensor", v);
  return x;
}

Value symbolic_matmul(const char *who, Value x, Value y) {
  Graph &g = active_graph(who);
  int32_t a = tensor_node_of(who, 1, x), b = tensor_node_of(who, 2, y);
  Shape as = g[a].shape, bs = g[b].shape;
  MatmulDims d;
  Shape os = matmul_shape(as, bs, &d);
  // A rank-1 left operand is a 1 x k row, a rank-1 right operand a k x 1 column.
  int32_t a2 = as.rank >= 2 ? a : g.reshape(a, Shape::of({1, as.dim[0]}));
  int32_t b2 = bs.rank >= 2 ? b : g.reshape(b, Shape::of({bs.dim[0], 1}));
  int32_t c;
  if (d.b_batch.rank == 0) {
    // A batch of left matrices times one right matrix is one matrix product of
    // all their rows: the same sums, and no copies of b.
    int32_t rows = g.reshape(a2, Shape::of({d.batch.size() * d.m, d.k}));
    c = g.matmul(who, rows, b2);
  } else {
    // The batch axes broadcast (BroadcastTo copies; its gradient sums back):
    // each operand gets leading 1s up to the batch rank, then stretches.
    auto batched = [&](int32_t x, const Shape &own, int64_t r, int64_t c) {
      Shape s, t = d.batch;
      for (int i = 0; i < d.batch.rank - own.rank; i++) s.dim[s.rank++] = 1;
      for (int i = 0; i < own.rank; i++) s.dim[s.rank++] = own.dim[i];
      for (Shape *p : {&s, &t}) {
        p->dim[p->rank++] = r;
        p->dim[p->rank++] = c;
      }
      return g.broadcast_to(g.reshape(x, s), t);
    };
    c = g.matmul(who, batched(a2, d.a_batch, d.m, d.k), batched(b2, d.b_batch, d.k, d.n));
  }
  c = g.reshape(c, os, os.rank == 0);
  return make_symbolic(c);
}

// Convolutions and pooling: the composite of window_graph.h. STRIDE and the
// other sizes must be constants (they fix the graph's shapes).
Value symbolic_window(WindowOp op, int argc, Value *argv) {
  const char *who = window_op_name(op);
  Graph &g = active_graph(who);
  int32_t x = tensor_node_of(who, 1, argv[0]);
  if (window_is_conv(op)) {
    int32_t w = tensor_node_of(who, 2, argv[1]);
    return make_symbolic(record_window(g, conv_window(op, g[x].shape, g[w].shape, argc, argv + 2), x, w));
  }
  return make_symbolic(record_window(g, pool_window(op, g[x].shape, argc, argv + 1), x, -1));
}

Value symbolic_transpose(const char *who, int argc, Value *argv) {
  Graph &g = active_graph(who);
  int32_t x = tensor_node_of(who, 1, argv[0]);
  Shape s = g[x].shape;
  int perm[kMaxRank];
  transpose_permutation(argc, argc > 1 ? argv[1] : NIL, s, perm);
  return make_symbolic(g.transpose(x, perm));
}

Value symbolic_reshape(const char *who, Value *argv) {
  Graph &g = active_graph(who);
  int32_t x = tensor_node_of(who, 1, argv[0]);
  return make_symbolic(g.reshape(x, reshape_shape(g[x].shape, argv[1]), false));
}

Value symbolic_slice(const char *who, Value *argv) {
  Graph &g = active_graph(who);
  int32_t x = tensor_node_of(who, 1, argv[0]);
  int axis;
  int64_t start;
  Shape os = slice_shape(g[x].shape, argv[1], argv[2], argv[3], axis, start);
  return make_symbolic(g.slice(x, axis, start, os.dim[axis]));
}

// n tensors become a chain of n - 1 Concat nodes (each copies; no arithmetic).
Value symbolic_concat(const char *who, int argc, Value *argv) {
  Graph &g = active_graph(who);
  Value list = argv[0];
  int64_t count = list_length(list);
  if (count <= 0) type_error(who, 1, "a non-empty list of tensors", list);
  std::vector<int32_t> parts;
  std::vector<Shape> shapes;
  int64_t k = 1;
  for (Value p = list; p != NIL; p = cdr(p), k++) {
    Value v = car(p);
    if (!is_symbolic(v) && !is_tensor(v)) concat_element_error(k, v);
    int32_t nd = node_of(who, 1, v);
    if (g[nd].is_number) concat_element_error(k, v);
    parts.push_back(nd);
    shapes.push_back(g[nd].shape);
  }
  int axis;
  concat_shape(shapes.data(), count, argc == 2 ? argv[1] : NOVALUE, axis);
  int32_t acc = parts[0];
  for (size_t k = 1; k < parts.size(); k++) acc = g.concat(acc, parts[k], axis);
  return make_symbolic(acc);
}

// The three operands' nodes are made (and their types checked) before any
// shape is: the eager builtins check in the same order (stdlib/tensor_select.cpp).
Value symbolic_where(const char *who, Value *argv) {
  Graph &g = active_graph(who);
  int32_t c = node_of(who, 1, argv[0]), a = node_of(who, 2, argv[1]), b = node_of(who, 3, argv[2]);
  return make_symbolic(g.select(who, c, a, b));
}

// (tensor-clip T LO HI) is min(max(T, LO), HI): PyTorch's clamp, gradient included.
Value symbolic_clip(const char *who, Value *argv) {
  Graph &g = active_graph(who);
  int32_t x = node_of(who, 1, argv[0]), lo = node_of(who, 2, argv[1]), hi = node_of(who, 3, argv[2]);
  return make_symbolic(g.binary(who, Op::Minimum, g.binary(who, Op::Maximum, x, lo), hi));
}

Value symbolic_argmax(const char *who, int argc, Value *argv) {
  Graph &g = active_graph(who);
  int32_t x = tensor_node_of(who, 1, argv[0]);
  int axis = tensor_axis(who, 2, argc > 1 ? argv[1] : make_fixnum(-1), g[x].shape);
  return make_symbolic(g.argmax(x, axis));
}

// INDICES reach here as a number, a tensor or a symbolic value: the builtin turns
// a list or vector into a tensor before it asks the tracer.
Value symbolic_take(const char *who, int argc, Value *argv) {
  Graph &g = active_graph(who);
  int32_t x = tensor_node_of(who, 1, argv[0]);
  int32_t idx = node_of(who, 2, argv[1]);
  int axis = tensor_axis(who, 3, argc > 2 ? argv[2] : make_fixnum(0), g[x].shape);
  return make_symbolic(g.take(x, idx, axis));
}

// (%one-hot WHO LABELS N), its WHO and N checked by the builtin: 1.0 where a
// label equals its column's index (an `equal` mask against 0..N-1), else the
// label's entry of N zeros, a `take` that checks every label (a bad one named as
// WHO's) and adds only 0.0. The values are the eager rows of the identity; the
// constants are N long, not an N x N identity.
Value symbolic_one_hot(Value *argv) {
  IndexUse use = labels_use(argv[0]);
  const char *who = index_use_name(use);
  Graph &g = active_graph(who);
  int64_t n = int_of(argv[2]);
  int32_t labels = node_of(who, index_use_position(use), argv[1]);
  Shape column = g[labels].shape;
  take_shape(Shape::of({n, n}), column, 0);  // the eager builtin's rank check
  column.dim[column.rank++] = 1;
  Tensor *iota = alloc_tensor(Shape::of({n})), *zero = alloc_tensor(Shape::of({n}));
  for (int64_t i = 0; i < n; i++) {
    iota->data[i] = double(i);
    zero->data[i] = 0.0;
  }
  int32_t checked = g.take(g.constant_tensor(from_ptr(zero)), labels, 0, use);
  int32_t mask = g.binary(who, Op::Equal, g.reshape(labels, column), g.constant_tensor(from_ptr(iota)));
  return make_symbolic(g.select(who, mask, g.constant(1.0, true), g.reshape(checked, column)));
}

Value symbolic_reduce(const char *who, Op whole, int argc, Value *argv) {
  Graph &g = active_graph(who);
  int32_t x = node_of(who, 1, argv[0]);
  if (argc == 1) return make_symbolic(g.reduce_all(whole, x));
  int axis = tensor_axis(who, 2, argv[1], g[x].shape);
  bool keepdims = argc == 3 && truthy(argv[2]);
  Op op = whole == Op::Sum ? Op::SumAxis : whole == Op::Mean ? Op::MeanAxis : Op::MaxAxis;
  return make_symbolic(g.reduce_axis(op, x, axis, keepdims));
}

// (tensor-min T ...) is -(tensor-max (- T) ...): the eager builtin's steps
// (stdlib/tensors.cpp), and max's gradient to the first minimal element.
Value symbolic_min(const char *who, int argc, Value *argv) {
  Graph &g = active_graph(who);
  int32_t neg = g.unary(Op::Neg, node_of(who, 1, argv[0]));
  if (argc == 1) return make_symbolic(g.unary(Op::Neg, g.reduce_all(Op::Max, neg)));
  int axis = tensor_axis(who, 2, argv[1], g[neg].shape);
  bool keepdims = argc == 3 && truthy(argv[2]);
  return make_symbolic(g.unary(Op::Neg, g.reduce_axis(Op::MaxAxis, neg, axis, keepdims)));
}

// (tensor-var T ...): mean((T - mean(T))^2), the eager builtin's steps.
Value symbolic_var(const char *who, int argc, Value *argv) {
  Graph &g = active_graph(who);
  int32_t x = node_of(who, 1, argv[0]);
  if (argc == 1) {
    int32_t d = g.binary(who, Op::Sub, x, g.reduce_all(Op::Mean, x));
    return make_symbolic(g.reduce_all(Op::Mean, g.unary(Op::Square, d)));
  }
  int axis = tensor_axis(who, 2, argv[1], g[x].shape);
  bool keepdims = argc == 3 && truthy(argv[2]);
  int32_t d = g.binary(who, Op::Sub, x, g.reduce_axis(Op::MeanAxis, x, axis, true));
  return make_symbolic(g.reduce_axis(Op::MeanAxis, g.unary(Op::Square, d), axis, keepdims));
}

// A KEY operand: a number, or a symbolic number (rank 0); a constant one is
// checked by Graph::random, as the eager builtin checks it.
int32_t key_node_of(const char *who, int pos, Value v) {
  Graph &g = active_graph(who);
  if (!is_symbolic(v)) {
    arg_random_key(who, pos, v);
    return g.constant(number_as_double(v), true);
  }
  int32_t k = node_of(who, pos, v);
  if (!g[k].is_number) random_key_error_at(who, pos, v);  // as eagerly: a number, not a tensor
  return k;
}

Value symbolic_random(const char *who, RandomKind kind, Value *argv) {
  Graph &g = active_graph(who);
  Shape s = arg_shape(who, 1, argv[0]);
  return make_symbolic(g.random(kind, key_node_of(who, 2, argv[1]), s));
}

// (random-split KEY N): one Random node of N keys, each taken out as a number.
Value symbolic_random_split(const char *who, Value *argv) {
  Graph &g = active_graph(who);
  int32_t key = key_node_of(who, 1, argv[0]);
  int64_t n = random_split_count(argv[1]);
  int32_t keys = g.random(RandomKind::Split, key, Shape::of({n}));
  Value out = NIL;
  for (int64_t j = n - 1; j >= 0; j--)
    out = cons(make_symbolic(g.reshape(g.slice(keys, 0, j, 1), Shape{}, true)), out);
  return out;
}

// (dropout T RATE KEY): T * select(u >= RATE, 1 / (1 - RATE), 0), u uniform
// numbers of T's shape; a constant RATE of 0 is T itself. A traced RATE is not
// range-checked (its value is not known while tracing).
Value symbolic_dropout(const char *who, Value *argv) {
  Graph &g = active_graph(who);
  int32_t x = node_of(who, 1, argv[0]);
  int32_t rate;
  if (is_symbolic(argv[1])) {
    rate = node_of(who, 2, argv[1]);
    if (g[rate].shape.rank != 0) type_error(who, 2, "a number", argv[1]);
  } else {
    double r = dropout_rate(argv[1]);
    rate = g.constant(r, true);
    if (r == 0.0) {
      key_node_of(who, 3, argv[2]);
      return argv[0];
    }
  }
  int32_t key = key_node_of(who, 3, argv[2]);
  int32_t u = g.random(RandomKind::Dropout, key, g[x].shape);
  if (g[x].is_number) u = g.reshape(u, Shape{}, true);  // numbers in, number out
  int32_t one = g.constant(1.0, true);
  int32_t scale = g.binary(who, Op::Div, one, g.binary(who, Op::Sub, one, rate));
  int32_t keep = g.binary(who, Op::GreaterEqual, u, rate);
  return make_symbolic(g.binary(who, Op::Mul, x, g.select(who, keep, scale, g.constant(0.0, true))));
}

// (+ a b ...), (exp x), (< a b) ... with a symbolic argument.
Value symbolic_arith(const char *op, int argc, Value *argv) {
  auto &table = generic_table();
  auto it = table.find(op);
  if (it == table.end()) unsupported(op);
  const GenericOp &info = it->second;
  Graph &g = active_graph(op);
  switch (info.kind) {
  case Kind::Fold: {
    if (argc == 1) {
      int32_t x = node_of(op, 1, argv[0]);
      switch (info.one) {
      case OneArgument::None: unsupported(op);
      case OneArgument::Identity: return argv[0];  // (+ x), (* x), (max x)
      case OneArgument::Neg: return make_symbolic(g.unary(Op::Neg, x));
      case OneArgument::Reciprocal: return make_symbolic(g.unary(Op::Reciprocal, x));
      }
    }
    if (!info.folds && argc != 2) unsupported(op);
    int32_t acc = node_of(op, 1, argv[0]);
    for (int i = 1; i < argc; i++) acc = g.binary(op, info.op, acc, node_of(op, i + 1, argv[i]));
    return make_symbolic(acc);
  }
  case Kind::Unary: {
    if (argc != 1) unsupported(op);  // (log x base), (atan y x)
    int32_t x = node_of(op, 1, argv[0]);
    if (info.add) return make_symbolic(g.binary(op, info.op, x, g.constant(1.0, true)));
    return make_symbolic(g.unary(info.op, x));
  }
  case Kind::Compare: {
    if (argc < 2) unsupported(op);
    // (< a b c) is (a < b) and (b < c): the product of the masks.
    int32_t mask = -1;
    for (int i = 0; i + 1 < argc; i++) {
      int32_t m = g.binary(op, info.op, node_of(op, i + 1, argv[i]), node_of(op, i + 2, argv[i + 1]));
      mask = mask < 0 ? m : g.binary(op, Op::Mul, mask, m);
    }
    return make_symbolic(mask);
  }
  }
  unsupported(op);
}

// A tensor builtin given a symbolic argument: it names itself by its BuiltinOp
// (runtime/op_table.h), an op of the table or a composite, never by a string.
Value symbolic_op(Op op, int argc, Value *argv) {
  const char *who = op_info(op).builtin ? op_info(op).builtin : op_name(op);
  Graph &g = active_graph(who);
  switch (op) {
  KILN_BINARY_OP_CASES:
    return make_symbolic(g.binary(who, op, node_of(who, 1, argv[0]), node_of(who, 2, argv[1])));
  KILN_UNARY_OP_CASES:
    return make_symbolic(g.unary(op, node_of(who, 1, argv[0])));
  case Op::Sum:
  case Op::Mean:
  case Op::Max: return symbolic_reduce(who, op, argc, argv);
  case Op::Matmul: return symbolic_matmul(who, argv[0], argv[1]);
  case Op::Transpose: return symbolic_transpose(who, argc, argv);
  case Op::Reshape: return symbolic_reshape(who, argv);
  case Op::Slice: return symbolic_slice(who, argv);
  case Op::Concat: return symbolic_concat(who, argc, argv);
  case Op::Select: return symbolic_where(who, argv);
  case Op::Argmax: return symbolic_argmax(who, argc, argv);
  case Op::Take: return symbolic_take(who, argc, argv);
  // No builtin records these (their rows' BUILTIN is nullptr).
  case Op::Param:
  case Op::Const:
  case Op::SumAxis:
  case Op::MeanAxis:
  case Op::MaxAxis:
  case Op::SumTo:
  case Op::BroadcastTo:
  case Op::MaxMask:
  case Op::Pad:
  case Op::ScatterAdd:
  case Op::Random:
  case Op::Allreduce:
  case Op::Loop: break;
  }
  unsupported(who);
}

Value symbolic_composite(Composite c, int argc, Value *argv) {
  const char *who = BuiltinOp(c).name();
  switch (c) {
  case Composite::Clip: return symbolic_clip(who, argv);
  case Composite::OneHot: return symbolic_one_hot(argv);
  case Composite::Min: return symbolic_min(who, argc, argv);
  case Composite::Var: return symbolic_var(who, argc, argv);
  case Composite::Rand: return symbolic_random(who, RandomKind::Uniform, argv);
  case Composite::Randn: return symbolic_random(who, RandomKind::Normal, argv);
  case Composite::RandomSplit: return symbolic_random_split(who, argv);
  case Composite::Dropout: return symbolic_dropout(who, argv);
  case Composite::Conv2d: return symbolic_window(WindowOp::Conv2d, argc, argv);
  case Composite::Conv1d: return symbolic_window(WindowOp::Conv1d, argc, argv);
  case Composite::MaxPool2d: return symbolic_window(WindowOp::MaxPool2d, argc, argv);
  case Composite::AvgPool2d: return symbolic_window(WindowOp::AvgPool2d, argc, argv);
  case Composite::TensorShape: return shape_list(shape_of_operand(argv[0]));
  case Composite::TensorRank: return make_int(shape_of_operand(argv[0]).rank);
  case Composite::TensorSize: return make_int(shape_of_operand(argv[0]).size());
  // No graph form: a tensor from Lisp data, elements read out, a procedure per element.
  case Composite::Tensor:
  case Composite::Full:
  case Composite::TensorRef:
  case Composite::TensorToList:
  case Composite::TensorItem:
  case Composite::TensorMap: break;
  }
  unsupported(who);
}

Value symbolic_call(BuiltinOp b, int argc, Value *argv) {
  return b.is_op() ? symbolic_op(b.op(), argc, argv) : symbolic_composite(b.composite(), argc, argv);
}

// Is node i a select mask: a comparison, or a product of masks?
bool is_mask(const Graph &g, int32_t i) {
  const GraphNode &n = g[i];
  if (op_is_comparison(n.op)) return true;
  return n.op == Op::Mul && is_mask(g, n.in[0]) && is_mask(g, n.in[1]);
}

Value select_hook(Value test, Value then_value, Value else_value) {
  Graph &g = active_graph("if");
  int32_t cond = node_of("if", 1, test);
  if (!is_mask(g, cond)) data_dependent_control();
  for (Value v : {then_value, else_value})
    if (!is_symbolic(v) && !is_number(v) && !is_tensor(v)) unsupported("if");
  return make_symbolic(g.select("if", cond, node_of("if", 2, then_value), node_of("if", 3, else_value)));
}

// F's result `r` as nodes: its leaves' nodes into `out_nodes` (with `with_aux`,
// r is (LOSS . AUX): LOSS's node first, then AUX's leaves); returns the result's
// (or AUX's) skeleton.
Value record_result(const char *who, Value r, bool with_aux, std::vector<int32_t> &out_nodes) {
  out_nodes.clear();
  if (with_aux) {
    if (!is_pair(r))
      throw_errorf("{}: the traced function must return (LOSS . AUX), got {}", who, error_value_string(r));
    Value loss = car(r);
    if (!is_symbolic(loss) && !is_number(loss) && !is_tensor(loss))
      throw_errorf("{}: the loss must be a number or a tensor, got {}", who, error_value_string(loss));
    out_nodes.push_back(node_of(who, 0, loss));
    r = cdr(r);
  } else if (!is_tree_branch(r)) {
    if (!is_symbolic(r) && !is_number(r) && !is_tensor(r))
      throw_errorf("{}: the traced function must return a number, a tensor or a tree of them, got {}", who,
                   error_value_string(r));
    out_nodes.push_back(node_of(who, 0, r));
    return TRUE_V;
  }
  int64_t count =
      tree_check(who, with_aux ? "the traced function's AUX" : "the traced function's result", r, true);
  auto *leaves = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(count + 1)));
  int64_t k = 0;
  tree_flatten(r, leaves, k);
  for (int64_t j = 0; j < count; j++) out_nodes.push_back(node_of(who, 0, leaves[j]));
  return tree_skeleton(r);
}

struct TraceScope {
  explicit TraceScope(Graph &g) {
    g_trace.graph = &g;
    g_trace.id = g_next_trace_id++;
    ++g_symbolic_if_epoch;
  }
  ~TraceScope() {
    g_trace.graph = nullptr;
    g_trace.id = 0;
    g_trace.depth = 0;
  }
};

}  // namespace

bool tracing_active() { return g_trace.graph != nullptr; }

void install_graph_hooks() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  g_symbolic_type = register_object_type("symbolic value");
  TypeHooks &h = g_type_hooks[g_symbolic_type];
  h.arith = symbolic_arith;
  h.call = symbolic_call;  // the tensor builtins (stdlib/tensors.cpp) given a symbolic value
  h.arith_rank = 2;        // above tensors: (+ tensor symbolic) records a node
  h.select = select_hook;
  h.truth = [](Value, const char *who) { unsupported(who); };
  h.print = [](std::string &out, Value v, bool) {
    out += "#<symbolic value ";
    out += shape_string(as<SymbolicValue>(v)->shape);
    out += '>';
  };
}

bool is_symbolic_value(Value v) { return is_symbolic(v); }

Value record_allreduce(const char *who, Value leaf, int kind, uint64_t signature) {
  int32_t x = node_of(who, 1, leaf);
  return make_symbolic(active_graph(who).allreduce(x, kind, signature));
}

bool symbolic_shape(Value v, Shape &s, bool &number) {
  if (!is_symbolic(v)) return false;
  s = as<SymbolicValue>(v)->shape;
  number = as<SymbolicValue>(v)->is_number;
  return true;
}

int32_t trace_into(Graph &g, const char *who, Value f, int argc, const ArgSpec *args) {
  std::vector<int32_t> outs;
  Value skeleton = trace_into(g, who, f, *flat_layout(argc, false), args, false, outs);
  if (skeleton != TRUE_V)
    throw_errorf("{}: the traced function must return a number or a tensor, got a tree", who);
  return outs[0];
}

namespace {

// Stand-ins for a nested gradient's arguments: Param nodes whose indices no real
// param has, unique per stand-in so no two are hash-consed together.
int32_t g_next_stand_in = 1 << 30;

bool is_stand_in(const GraphNode &n) { return n.op == Op::Param && n.param_index >= (1 << 30); }

// A nested gradient's recording scope (see TraceState).
struct NestedScope {
  explicit NestedScope(const char *who) {
    if (g_trace.depth == 64) throw_errorf("{}: gradients nested more than 64 deep", who);
    g_trace.outer[g_trace.depth++] = g_trace.id;
    g_trace.id = g_next_trace_id++;
  }
  ~NestedScope() { g_trace.id = g_trace.outer[--g_trace.depth]; }
};

}  // namespace

Graph &traced_graph(const char *who) { return active_graph(who); }
int32_t traced_node(const char *who, Value v) { return node_of(who, 0, v); }
Value traced_value(int32_t node) { return make_symbolic(node); }
int32_t new_stand_in(Graph &g, const Shape &s, bool is_number) {
  GraphNode n;
  n.op = Op::Param;
  n.param_index = g_next_stand_in++;
  if (g_next_stand_in == INT32_MAX) g_next_stand_in = 1 << 30;
  n.shape = s;
  n.is_number = is_number;
  return g.record(n);
}
bool is_stand_in_node(const GraphNode &n) { return is_stand_in(n); }
void enter_recording_scope(const char *who) {
  if (g_trace.depth == 64) throw_errorf("{}: gradients and loops nested more than 64 deep", who);
  g_trace.outer[g_trace.depth++] = g_trace.id;
  g_trace.id = g_next_trace_id++;
}
void leave_recording_scope() { g_trace.id = g_trace.outer[--g_trace.depth]; }

Value trace_nested_grad(const char *who, Value f, TreeLayout &layout, const Value *args) {
  Graph &g = active_graph(who);
  int64_t nleaves = layout.nleaves();
  auto *leaves = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(nleaves + 1)));
  flatten_arguments(layout, args, leaves);
  std::vector<int32_t> actual(static_cast<size_t>(nleaves)), stand_in(static_cast<size_t>(nleaves));
  for (int64_t k = 0; k < nleaves; k++) actual[size_t(k)] = node_of(who, 0, leaves[k]);
  const int32_t mark = g.size();
  std::optional<NestedScope> scope(std::in_place, who);
  for (int64_t k = 0; k < nleaves; k++) {
    GraphNode n;
    n.op = Op::Param;
    n.param_index = g_next_stand_in++;
    if (g_next_stand_in == INT32_MAX) g_next_stand_in = 1 << 30;
    n.shape = g[actual[size_t(k)]].shape;
    n.is_number = g[actual[size_t(k)]].is_number;
    stand_in[size_t(k)] = g.record(n);
    leaves[k] = make_symbolic(stand_in[size_t(k)]);
  }
  int argc = layout.nargs;
  auto *argv = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(argc + 1)));
  int64_t at = 0;
  for (int i = 0; i < argc; i++) argv[i] = tree_rebuild(layout.arg_skeletons[i], leaves, at);
  Value r = apply_proc(f, argc, argv);

  // A plain loss must be one leaf; (LOSS . AUX) is checked by record_result.
  if (!layout.with_aux && !is_symbolic(r) && !is_number(r) && !is_tensor(r)) {
    if (is_tree_branch(r)) throw_errorf("{}: the loss must be a scalar, got a tree", who);
    throw_errorf("{}: the loss must be a number or a tensor, got {}", who, error_value_string(r));
  }
  std::vector<int32_t> outs;
  Value aux_skeleton = record_result(who, r, layout.with_aux, outs);
  if (layout.with_aux) layout.out_skeleton = aux_skeleton;
  int32_t loss = outs[0];
  if (g[loss].shape.rank != 0)
    throw_errorf("{}: the loss must be a scalar, got a {} tensor", who, shape_string(g[loss].shape));
  outs[0] = g.reshape(loss, Shape{}, true);
  std::vector<int32_t> wrt;
  std::vector<bool> wrt_number;
  for (int64_t k : wrt_leaves(layout)) {
    wrt.push_back(stand_in[size_t(k)]);
    wrt_number.push_back(g[stand_in[size_t(k)]].is_number);
  }
  std::vector<int32_t> grads = append_gradients(g, loss, wrt);
  for (size_t j = 0; j < grads.size(); j++) {
    Shape s = g[grads[j]].shape;
    outs.push_back(g.reshape(grads[j], s, wrt_number[j]));
  }

  scope.reset();  // the values made from here on are the enclosing scope's
  // Replace the stand-ins by the actual nodes: re-record everything recorded
  // since `mark`, so F's nodes are hash-consed with the enclosing trace's.
  std::vector<GraphNode> region(g.nodes.begin() + mark, g.nodes.end());
  g.truncate(mark);
  std::vector<int32_t> moved(region.size());
  for (size_t i = 0; i < region.size(); i++) {
    GraphNode n = region[i];
    if (is_stand_in(n)) {  // the region starts with them, stand_in[k] == mark + k
      moved[i] = actual[i];
      continue;
    }
    for (int q = 0; q < op_arity(n.op); q++)
      if (n.in[q] >= mark) n.in[q] = moved[size_t(n.in[q] - mark)];
    moved[i] = g.record(n);
  }
  auto *vals = static_cast<Value *>(gc_alloc(sizeof(Value) * (outs.size() + 1)));
  for (size_t j = 0; j < outs.size(); j++) {
    int32_t o = outs[j] >= mark ? moved[size_t(outs[j] - mark)] : outs[j];
    vals[j] = make_symbolic(o);
  }
  return assemble_results(layout, vals);
}

namespace {

// vmap's region as batch_loop sees it: nodes from `mark` were recorded per
// example and batched into `moved`; earlier ones are the same for every example.
class RegionView : public BatchedView {
 public:
  RegionView(const std::vector<GraphNode> &region, int32_t mark, const std::vector<BatchOperand> &moved)
      : region_(region), mark_(mark), moved_(moved) {}
  const GraphNode *example_node(int32_t o) const override {
    return o >= mark_ ? &region_[size_t(o - mark_)] : nullptr;
  }
  BatchOperand batched(int32_t o) const override {
    return o >= mark_ ? moved_[size_t(o - mark_)] : BatchOperand{o, false};
  }

 private:
  const std::vector<GraphNode> &region_;
  int32_t mark_;
  const std::vector<BatchOperand> &moved_;
};

}  // namespace

Value trace_nested_vmap(Value f, const TreeLayout &layout, const Value *args, const int *leaf_axes,
                        int64_t batch, int out_axis) {
  const char *who = "vmap";
  Graph &g = active_graph(who);
  int64_t nleaves = layout.nleaves();
  auto *leaves = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(nleaves + 1)));
  flatten_arguments(layout, args, leaves);
  // Each mapped leaf, its batch axis moved to 0; the stand-ins are their slices.
  std::vector<int32_t> mapped_actual;
  for (int64_t k = 0; k < nleaves; k++) {
    int32_t x = node_of(who, 0, leaves[k]);
    if (leaf_axes[k] < 0) continue;
    mapped_actual.push_back(move_axis(g, x, leaf_axes[k], 0));
  }
  const int32_t mark = g.size();
  std::optional<NestedScope> scope(std::in_place, who);
  for (int64_t k = 0, m = 0; k < nleaves; k++) {
    if (leaf_axes[k] < 0) continue;
    GraphNode n;
    n.op = Op::Param;
    n.param_index = g_next_stand_in++;
    if (g_next_stand_in == INT32_MAX) g_next_stand_in = 1 << 30;
    const Shape &s = g[mapped_actual[size_t(m++)]].shape;
    n.shape.rank = s.rank - 1;
    for (int i = 1; i < s.rank; i++) n.shape.dim[i - 1] = s.dim[i];
    n.is_number = false;  // a slice of a tensor is a tensor, rank 0 included
    leaves[k] = make_symbolic(g.record(n));
  }
  int argc = layout.nargs;
  auto *argv = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(argc + 1)));
  int64_t at = 0;
  for (int i = 0; i < argc; i++) argv[i] = tree_rebuild(layout.arg_skeletons[i], leaves, at);
  Value r = apply_proc(f, argc, argv);
  std::vector<int32_t> outs;
  Value skeleton = record_result(who, r, false, outs);
  scope.reset();  // the values made from here on are the enclosing scope's

  // Batch what F recorded: re-record the region since `mark`, each node by its
  // rule where an operand is batched, as it was where none is (those are the
  // same for every example, computed once). The stand-ins, first in the region,
  // become the mapped arguments.
  std::vector<GraphNode> region(g.nodes.begin() + mark, g.nodes.end());
  g.truncate(mark);
  std::vector<BatchOperand> moved(region.size());
  RegionView view(region, mark, moved);
  for (size_t i = 0; i < region.size(); i++) {
    GraphNode n = region[i];
    if (i < mapped_actual.size()) {
      moved[i] = {mapped_actual[i], true};
      continue;
    }
    BatchOperand in[3];
    bool any = false;
    for (int q = 0; q < op_arity(n.op); q++) {
      in[q] = n.in[q] >= mark ? moved[size_t(n.in[q] - mark)] : BatchOperand{n.in[q], false};
      any = any || in[q].batched;
      n.in[q] = in[q].node;
    }
    if (any && n.op == Op::Loop) {
      moved[i] = {batch_loop(g, region[i], view, batch), true};
      continue;
    }
    moved[i] = any ? BatchOperand{batch_node(g, n, in, batch), true} : BatchOperand{g.record(n), false};
  }
  // Each result leaf stacked along OUT-AXES: an unbatched one is repeated.
  auto *vals = static_cast<Value *>(gc_alloc(sizeof(Value) * (outs.size() + 1)));
  for (size_t j = 0; j < outs.size(); j++) {
    BatchOperand o = outs[j] >= mark ? moved[size_t(outs[j] - mark)] : BatchOperand{outs[j], false};
    int32_t node = o.batched ? o.node : broadcast_batch(g, o.node, batch);
    int rank = g[node].shape.rank;
    int axis = out_axis < 0 ? out_axis + rank : out_axis;
    if (axis < 0 || axis >= rank)
      throw_errorf("vmap: OUT-AXES {} is out of range for a result of {} axes (with the mapped one)",
                   out_axis, rank);
    vals[j] = make_symbolic(move_axis(g, node, 0, axis));
  }
  int64_t k = 0;
  return tree_rebuild(skeleton, vals, k);
}

Value trace_into(Graph &g, const char *who, Value f, const TreeLayout &layout, const ArgSpec *specs,
                 bool with_aux, std::vector<int32_t> &out_nodes) {
  install_graph_hooks();
  if (tracing_active()) unsupported(who);
  TraceScope scope(g);
  int64_t nleaves = layout.nleaves();
  auto *leaves = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(nleaves + 1)));
  for (int64_t k = 0; k < nleaves; k++) leaves[k] = make_symbolic(g.param(int(k), specs[k]));
  g.num_params = int(nleaves);
  int argc = layout.nargs;
  // On the stack (scanned by the collector) for the usual few arguments.
  Value small[16];
  Value *argv = argc <= 16 ? small : static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(argc)));
  if (layout.flat) {
    for (int i = 0; i < argc; i++) argv[i] = leaves[i];
  } else {
    int64_t k = 0;
    for (int i = 0; i < argc; i++) argv[i] = tree_rebuild(layout.arg_skeletons[i], leaves, k);
  }
  Value r = apply_proc(f, argc, argv);
  return record_result(who, r, with_aux, out_nodes);
}

}  // namespace kiln

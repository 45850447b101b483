// trace.cpp — symbolic values and the hooks that record graph nodes while a
// traced procedure runs (SPEC §8), plus build_forward_graph/build_grad_graph.
//
// Invariant: see trace.h. Every operation on a symbolic value either records a
// node through the Graph API (which checks shapes with the eager builtins'
// messages) or raises `graph: 'NAME' is not supported inside a traced function`.
#include "trace.h"

#include <string_view>
#include <unordered_map>

#include "../runtime/eval.h"
#include "../runtime/nodes.h"
#include "../runtime/printer.h"
#include "../runtime/tensor.h"
#include "../stdlib/builtins.h"
#include "autodiff.h"
#include "optimize.h"

namespace kiln {

namespace {

struct SymbolicValue {
  ObjHeader h;
  uint64_t trace_id;
  int32_t node;
  Shape shape;  // a copy for printing without the Graph
};

struct TraceState {
  Graph *graph = nullptr;
  uint64_t id = 0;
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

bool is_symbolic(Value v) { return has_type(v, T_SYMBOLIC); }

Value make_symbolic(int32_t node) {
  auto *s = alloc_obj<SymbolicValue>(T_SYMBOLIC);
  s->trace_id = g_trace.id;
  s->node = node;
  s->shape = (*g_trace.graph)[node].shape;
  return from_ptr(s);
}

// The node standing for an operand: a symbolic value, a number or a tensor.
int32_t node_of(const char *who, int pos, Value v) {
  Graph &g = active_graph(who);
  if (is_symbolic(v)) {
    auto *s = as<SymbolicValue>(v);
    if (s->trace_id != g_trace.id)
      throw_errorf("graph: '{}' got a symbolic value from another traced function", who);
    return s->node;
  }
  if (is_number(v)) return g.constant(number_as_double(v), true);
  if (is_tensor(v)) return g.constant_tensor(v);
  type_error(who, pos, "a number or a tensor", v);
}

// ---- the operations a traced procedure may use ------------------------------------

enum class Kind : uint8_t {
  Fold,
  Unary,
  Compare,
  Reduce,
  Matmul,
  Transpose,
  Reshape,
  Slice,
  Concat,
  ShapeQuery
};

struct OpInfo {
  Kind kind;
  Op op;          // Fold/Unary/Compare: the node op; Reduce: the whole-tensor op
  int extra = 0;  // Unary "1+"/"1-": +1/-1; Fold with one argument: the unary op's index + 1
};

const std::unordered_map<std::string_view, OpInfo> &op_table() {
  static const std::unordered_map<std::string_view, OpInfo> table = [] {
    std::unordered_map<std::string_view, OpInfo> t;
    t["+"] = {Kind::Fold, Op::Add};
    t["-"] = {Kind::Fold, Op::Sub, int(Op::Neg) + 1};
    t["*"] = {Kind::Fold, Op::Mul};
    t["/"] = {Kind::Fold, Op::Div, int(Op::Reciprocal) + 1};
    t["max"] = {Kind::Fold, Op::Maximum};
    t["min"] = {Kind::Fold, Op::Minimum};
    t["expt"] = {Kind::Fold, Op::Pow};
    t["tensor-add"] = {Kind::Fold, Op::Add};
    t["tensor-sub"] = {Kind::Fold, Op::Sub};
    t["tensor-mul"] = {Kind::Fold, Op::Mul};
    t["tensor-div"] = {Kind::Fold, Op::Div};
    t["tensor-pow"] = {Kind::Fold, Op::Pow};
    t["tensor-maximum"] = {Kind::Fold, Op::Maximum};
    t["abs"] = {Kind::Unary, Op::Abs};
    t["sqrt"] = {Kind::Unary, Op::Sqrt};
    t["exp"] = {Kind::Unary, Op::Exp};
    t["log"] = {Kind::Unary, Op::Log};
    t["sin"] = {Kind::Unary, Op::Sin};
    t["cos"] = {Kind::Unary, Op::Cos};
    t["tan"] = {Kind::Unary, Op::Tan};
    t["square"] = {Kind::Unary, Op::Square};
    t["1+"] = {Kind::Unary, Op::Add, 1};
    t["1-"] = {Kind::Unary, Op::Sub, 1};
    t["tensor-neg"] = {Kind::Unary, Op::Neg};
    t["tensor-exp"] = {Kind::Unary, Op::Exp};
    t["tensor-log"] = {Kind::Unary, Op::Log};
    t["tensor-sqrt"] = {Kind::Unary, Op::Sqrt};
    t["tensor-tanh"] = {Kind::Unary, Op::Tanh};
    t["tensor-sigmoid"] = {Kind::Unary, Op::Sigmoid};
    t["relu"] = {Kind::Unary, Op::Relu};
    t["tensor-abs"] = {Kind::Unary, Op::Abs};
    t["<"] = {Kind::Compare, Op::Less};
    t["<="] = {Kind::Compare, Op::LessEqual};
    t[">"] = {Kind::Compare, Op::Greater};
    t[">="] = {Kind::Compare, Op::GreaterEqual};
    t["="] = {Kind::Compare, Op::Equal};
    t["tensor-sum"] = {Kind::Reduce, Op::Sum};
    t["tensor-mean"] = {Kind::Reduce, Op::Mean};
    t["tensor-max"] = {Kind::Reduce, Op::Max};
    t["matmul"] = {Kind::Matmul, Op::Matmul};
    t["transpose"] = {Kind::Transpose, Op::Transpose};
    t["reshape"] = {Kind::Reshape, Op::Reshape};
    t["tensor-slice"] = {Kind::Slice, Op::Slice};
    t["concat"] = {Kind::Concat, Op::Concat};
    t["tensor-shape"] = {Kind::ShapeQuery, Op::Param, 0};
    t["tensor-rank"] = {Kind::ShapeQuery, Op::Param, 1};
    t["tensor-size"] = {Kind::ShapeQuery, Op::Param, 2};
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

Value symbolic_matmul(const char *who, Value x, Value y) {
  Graph &g = active_graph(who);
  int32_t a = node_of(who, 1, x), b = node_of(who, 2, y);
  Shape as = g[a].shape, bs = g[b].shape;
  for (int i = 0; i < 2; i++) {
    const Shape &s = i ? bs : as;
    if (s.rank != 1 && s.rank != 2) {
      std::string d =
          s.rank == 0 ? "a scalar tensor" : fmt::format("a rank-{} tensor ({})", s.rank, shape_string(s));
      throw_errorf("{}: argument {} must be a rank-1 or rank-2 tensor, got {}", who, i + 1, d);
    }
  }
  if (as.dim[as.rank - 1] != bs.dim[0])
    throw_errorf("{}: inner dimensions differ ({} and {})", who, shape_string(as), shape_string(bs));
  // NumPy: a rank-1 left operand is a 1 x k row, a rank-1 right operand a k x 1
  // column; those unit dimensions are dropped from the result.
  int32_t a2 = as.rank == 2 ? a : g.reshape(a, Shape::of({1, as.dim[0]}));
  int32_t b2 = bs.rank == 2 ? b : g.reshape(b, Shape::of({bs.dim[0], 1}));
  int32_t c = g.matmul(who, a2, b2);
  Shape os;
  if (as.rank == 2) os.dim[os.rank++] = as.dim[0];
  if (bs.rank == 2) os.dim[os.rank++] = bs.dim[1];
  if (os.rank != 2) c = g.reshape(c, os, os.rank == 0);
  return make_symbolic(c);
}

Value symbolic_transpose(const char *who, int argc, Value *argv) {
  Graph &g = active_graph(who);
  int32_t x = node_of(who, 1, argv[0]);
  Shape s = g[x].shape;
  int perm[kMaxRank];
  transpose_permutation(argc, argc > 1 ? argv[1] : NIL, s, perm);
  return make_symbolic(g.transpose(x, perm));
}

Value symbolic_reshape(const char *who, Value *argv) {
  Graph &g = active_graph(who);
  int32_t x = node_of(who, 1, argv[0]);
  int64_t size = g[x].size();
  Value spec = argv[1];
  const char *expected = "a list of positive integers (with at most one -1)";
  if (list_length(spec) < 0) type_error(who, 2, expected, spec);
  Shape s;
  int infer = -1;
  int64_t known = 1;
  for (Value p = spec; p != NIL; p = cdr(p)) {
    Value d = car(p);
    if (!is_int(d) || int_of(d) == 0 || int_of(d) < -1 || s.rank == kMaxRank)
      type_error(who, 2, expected, spec);
    if (int_of(d) == -1) {
      if (infer >= 0)
        throw_errorf("reshape: only one -1 is allowed in the shape {}",
                     write_string_capped(spec, kMessageValueLimit));
      infer = s.rank;
      s.dim[s.rank++] = 1;
    } else {
      known *= int_of(d);
      s.dim[s.rank++] = int_of(d);
    }
  }
  if (infer >= 0 && known <= size && size % known == 0) s.dim[infer] = size / known;
  if (s.size() != size)
    throw_errorf("reshape: cannot reshape {} ({} elements) into {}", shape_string(g[x].shape), size,
                 write_string_capped(spec, kMessageValueLimit));
  return make_symbolic(g.reshape(x, s, false));
}

Value symbolic_slice(const char *who, Value *argv) {
  Graph &g = active_graph(who);
  int32_t x = node_of(who, 1, argv[0]);
  if (is_number(argv[0]) || g[x].is_number) type_error(who, 1, "a tensor", argv[0]);
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
  for (Value p = list; p != NIL; p = cdr(p)) {
    Value v = car(p);
    if (!is_symbolic(v) && !is_tensor(v)) type_error(who, 1, "a non-empty list of tensors", list);
    int32_t nd = node_of(who, 1, v);
    if (g[nd].is_number) type_error(who, 1, "a non-empty list of tensors", list);
    parts.push_back(nd);
    shapes.push_back(g[nd].shape);
  }
  int axis;
  concat_shape(shapes.data(), count, argc == 2 ? argv[1] : NOVALUE, axis);
  int32_t acc = parts[0];
  for (size_t k = 1; k < parts.size(); k++) acc = g.concat(acc, parts[k], axis);
  return make_symbolic(acc);
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

Value shape_list(const Shape &s) {
  Value r = NIL;
  for (int i = s.rank - 1; i >= 0; i--) r = cons(make_int(s.dim[i]), r);
  return r;
}

Value symbolic_op(const char *op, int argc, Value *argv) {
  auto &table = op_table();
  auto it = table.find(op);
  if (it == table.end()) unsupported(op);
  const OpInfo &info = it->second;
  Graph &g = active_graph(op);
  switch (info.kind) {
  case Kind::Fold: {
    if (argc == 1) {
      if (info.extra) return make_symbolic(g.unary(Op(info.extra - 1), node_of(op, 1, argv[0])));
      node_of(op, 1, argv[0]);
      return argv[0];  // (+ x), (* x), (max x)
    }
    int32_t acc = node_of(op, 1, argv[0]);
    for (int i = 1; i < argc; i++) acc = g.binary(op, info.op, acc, node_of(op, i + 1, argv[i]));
    return make_symbolic(acc);
  }
  case Kind::Unary: {
    if (argc != 1) unsupported(op);  // (log x base), (atan y x)
    int32_t x = node_of(op, 1, argv[0]);
    if (info.extra) return make_symbolic(g.binary(op, info.op, x, g.constant(1.0, true)));
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
  case Kind::Reduce: return symbolic_reduce(op, info.op, argc, argv);
  case Kind::Matmul: return symbolic_matmul(op, argv[0], argv[1]);
  case Kind::Transpose: return symbolic_transpose(op, argc, argv);
  case Kind::Reshape: return symbolic_reshape(op, argv);
  case Kind::Slice: return symbolic_slice(op, argv);
  case Kind::Concat: return symbolic_concat(op, argc, argv);
  case Kind::ShapeQuery: {
    const Shape &s = shape_of_operand(argv[0]);
    if (info.extra == 0) return shape_list(s);
    if (info.extra == 1) return make_int(s.rank);
    return make_int(s.size());
  }
  }
  unsupported(op);
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
  if (!is_mask(g, cond)) unsupported("if");
  for (Value v : {then_value, else_value})
    if (!is_symbolic(v) && !is_number(v) && !is_tensor(v)) unsupported("if");
  return make_symbolic(g.select("if", cond, node_of("if", 2, then_value), node_of("if", 3, else_value)));
}

// ---- the tensor builtins' entry for symbolic arguments -------------------------------
//
// The tensor builtins (stdlib/tensors.cpp) know nothing about tracing. When the
// graph module is first used it wraps each of them: the wrapper sends a call
// with a symbolic argument to symbolic_op (under the builtin's own name) and
// every other call straight to the original function.

constexpr const char *kTensorBuiltins[] = {
    "tensor-add", "tensor-sub",   "tensor-mul",   "tensor-div",  "tensor-pow",   "tensor-maximum",
    "tensor-neg", "tensor-exp",   "tensor-log",   "tensor-sqrt", "tensor-tanh",  "tensor-sigmoid",
    "relu",       "tensor-abs",   "tensor-sum",   "tensor-mean", "tensor-max",   "matmul",
    "transpose",  "reshape",      "tensor-shape", "tensor-rank", "tensor-size",  "tensor-map",
    "tensor-ref", "tensor->list", "tensor-item",  "concat",      "tensor-slice", "tensor",
    "full",
};
constexpr int kWrapped = int(sizeof(kTensorBuiltins) / sizeof(kTensorBuiltins[0]));
BuiltinFn g_original[kWrapped];

constexpr int kConcat = [] {
  for (int i = 0; i < kWrapped; i++)
    if (std::string_view(kTensorBuiltins[i]) == "concat") return i;
  return -1;
}();

// concat's symbolic values are elements of its list argument.
bool has_symbolic_element(Value list) {
  if (list_length(list) < 0) return false;  // improper or circular: concat's own error
  for (Value p = list; p != NIL; p = cdr(p))
    if (is_symbolic(car(p))) return true;
  return false;
}

template <int I> Value wrapped(int argc, Value *argv) {
  for (int i = 0; i < argc; i++)
    if (is_symbolic(argv[i])) return symbolic_op(kTensorBuiltins[I], argc, argv);
  if constexpr (I == kConcat)
    if (argc > 0 && has_symbolic_element(argv[0])) return symbolic_op(kTensorBuiltins[I], argc, argv);
  return g_original[I](argc, argv);
}

template <int... I> void wrap_all(std::integer_sequence<int, I...>) {
  BuiltinFn wrappers[] = {wrapped<I>...};
  for (int i = 0; i < kWrapped; i++) {
    Value s = intern(kTensorBuiltins[i]);
    Value b = sym(s)->global;
    if (!is_builtin(b)) continue;
    g_original[i] = as<Builtin>(b)->fn;
    as<Builtin>(b)->fn = wrappers[i];
  }
}

struct TraceScope {
  explicit TraceScope(Graph &g) {
    g_trace.graph = &g;
    g_trace.id = g_next_trace_id++;
  }
  ~TraceScope() {
    g_trace.graph = nullptr;
    g_trace.id = 0;
  }
};

}  // namespace

bool tracing_active() { return g_trace.graph != nullptr; }

void install_graph_hooks() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  g_symbolic_arith = symbolic_op;
  g_select_hook = select_hook;
  TypeHooks &h = g_type_hooks[T_SYMBOLIC];
  h.name = "symbolic value";
  h.print = [](std::string &out, Value v, bool) {
    out += "#<symbolic value ";
    out += shape_string(as<SymbolicValue>(v)->shape);
    out += '>';
  };
  wrap_all(std::make_integer_sequence<int, kWrapped>{});
}

int32_t trace_into(Graph &g, const char *who, Value f, int argc, const ArgSpec *args) {
  install_graph_hooks();
  if (tracing_active()) unsupported(who);
  TraceScope scope(g);
  // On the stack (scanned by the collector) for the usual few arguments.
  Value small[16];
  Value *argv = argc <= 16 ? small : static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(argc)));
  for (int i = 0; i < argc; i++) argv[i] = make_symbolic(g.param(i, args[i]));
  g.num_params = argc;
  Value r = apply_proc(f, argc, argv);
  if (!is_symbolic(r) && !is_number(r) && !is_tensor(r))
    throw_errorf("{}: the traced function must return a number or a tensor, got {}", who,
                 write_string_capped(r, kMessageValueLimit));
  return node_of(who, 0, r);
}

ArgSpec arg_spec_of(const char *who, int pos, Value v) {
  ArgSpec s;
  if (is_number(v)) return s;
  if (is_tensor(v)) {
    s.shape = tensor_of(v)->shape;
    s.is_number = false;
    return s;
  }
  type_error(who, pos, "a number or a tensor", v);
}

// The graph a trace records into: reused, so tracing allocates almost nothing.
// Traces never nest (trace_into refuses), so one per thread suffices.
Graph &recording_graph(const char *who) {
  static thread_local Graph scratch;
  if (tracing_active()) unsupported(who);
  scratch.clear();
  return scratch;
}

std::unique_ptr<Graph> build_forward_graph(const char *who, Value f, int argc, const ArgSpec *args) {
  auto out = std::make_unique<Graph>();
  build_forward_graph_into(*out, who, f, argc, args);
  return out;
}

std::unique_ptr<Graph> build_grad_graph(const char *who, Value f, int argc, const ArgSpec *args) {
  auto out = std::make_unique<Graph>();
  build_grad_graph_into(*out, who, f, argc, args);
  return out;
}

void build_forward_graph_into(Graph &result, const char *who, Value f, int argc, const ArgSpec *args) {
  Graph &g = recording_graph(who);
  int32_t out = trace_into(g, who, f, argc, args);
  const GraphNode &n = g[out];
  g.outputs.push_back({out, n.is_number && n.shape.rank == 0});
  optimise_into(g, result);
}

void build_grad_graph_into(Graph &result, const char *who, Value f, int argc, const ArgSpec *args) {
  Graph &g = recording_graph(who);
  int32_t loss = trace_into(g, who, f, argc, args);
  if (g[loss].shape.rank != 0) {
    const Shape &s = g[loss].shape;
    throw_errorf("{}: the loss must be a scalar, got a {} tensor", who, shape_string(s));
  }
  std::vector<int32_t> grads = append_gradients(g, loss);
  g.outputs.push_back({loss, true});
  for (int i = 0; i < argc; i++) g.outputs.push_back({grads[size_t(i)], args[i].is_number});
  optimise_into(g, result);
}

}  // namespace kiln

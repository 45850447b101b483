// loop_forms.cpp — fori-loop, scan and while-loop, eager and traced (loop_forms.h).
//
// Invariant: see loop_forms.h. The eager loop and the Loop node compute the same
// ops in the same order, so their results agree bit for bit (numbers are
// float64 traced, as everywhere in graphs).
#include "compiler/loop_forms.h"

#include <fmt/format.h>

#include <cstring>
#include <optional>
#include <unordered_map>
#include <vector>

#include "compiler/loop.h"
#include "compiler/optimise.h"
#include "compiler/trace.h"
#include "compiler/tree.h"
#include "runtime/args.h"
#include "runtime/equal.h"
#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/gc.h"
#include "runtime/tensor.h"

namespace kiln {
namespace {

LeafSpec spec_of(Value v) {
  LeafSpec s;
  bool number = false;
  if (symbolic_shape(v, s.shape, number)) {
    s.is_number = number;
  } else if (is_tensor(v)) {
    s.shape = tensor_of(v)->shape;
  } else {
    s.is_number = true;
  }
  return s;
}

std::string spec_text(const LeafSpec &s) {
  if (s.is_number) return "a number";
  if (s.shape.rank == 0) return "a rank-0 tensor";
  return fmt::format("a {} tensor", shape_string(s.shape));
}

bool same_spec(const LeafSpec &a, const LeafSpec &b) {
  return a.is_number == b.is_number && a.shape == b.shape;
}

Value *gc_values(int64_t n) { return static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(n + 1))); }

// A tree's leaves (checked), its skeleton and leaf count.
struct Flat {
  Value skeleton = TRUE_V;
  Value *leaves = nullptr;
  int64_t count = 0;
};

Flat flatten_tree(const char *who, const std::string &what, Value tree, bool symbolic_ok) {
  Flat f;
  f.count = tree_check(who, what, tree, symbolic_ok);
  f.skeleton = tree_skeleton(tree);
  f.leaves = gc_values(f.count);
  int64_t k = 0;
  tree_flatten(tree, f.leaves, k);
  return f;
}

// The body's new carry, checked against INIT's structure and leaves.
Flat check_carry(const char *who, const char *what, const Flat &init, const std::vector<LeafSpec> &specs,
                 Value carry, bool symbolic_ok) {
  Flat f = flatten_tree(who, fmt::format("{}'s carry", what), carry, symbolic_ok);
  if (!equal(f.skeleton, init.skeleton))
    throw_errorf("{}: {} must return a carry with INIT's structure, got {}", who, what,
                 error_value_string(carry));
  for (int64_t k = 0; k < f.count; k++) {
    LeafSpec s = spec_of(f.leaves[k]);
    if (!same_spec(s, specs[size_t(k)]))
      throw_errorf("{}: {} changed carry leaf {} from {} to {}", who, what, k + 1,
                   spec_text(specs[size_t(k)]), spec_text(s));
  }
  return f;
}

Flat check_init(const char *who, Value init, bool symbolic_ok, std::vector<LeafSpec> &specs) {
  Flat f = flatten_tree(who, "INIT", init, symbolic_ok);
  if (f.count == 0)
    throw_errorf("{}: INIT must hold at least one number or tensor, got {}", who, error_value_string(init));
  for (int64_t k = 0; k < f.count; k++) specs.push_back(spec_of(f.leaves[k]));
  return f;
}

// XS: tensors of rank >= 1 with one length along axis 0 (the steps).
Flat check_xs(const char *who, Value xs, bool symbolic_ok, std::vector<LeafSpec> &slice_specs,
              int64_t &steps) {
  Flat f = flatten_tree(who, "XS", xs, symbolic_ok);
  if (f.count == 0) throw_errorf("{}: XS must hold at least one tensor, got {}", who, error_value_string(xs));
  steps = -1;
  for (int64_t k = 0; k < f.count; k++) {
    LeafSpec s = spec_of(f.leaves[k]);
    if (s.is_number || s.shape.rank == 0)
      throw_errorf("{}: XS leaf {} must be a tensor of rank 1 or more, got {}", who, k + 1,
                   error_value_string(f.leaves[k]));
    if (steps >= 0 && s.shape.dim[0] != steps)
      throw_errorf("{}: XS leaves differ in length along axis 0: {} and {}", who, steps, s.shape.dim[0]);
    steps = s.shape.dim[0];
    LeafSpec slice;
    slice.shape.rank = s.shape.rank - 1;
    for (int d = 1; d < s.shape.rank; d++) slice.shape.dim[d - 1] = s.shape.dim[d];
    slice.is_number = slice.shape.rank == 0;  // a rank-1 XS gives numbers
    slice_specs.push_back(slice);
  }
  return f;
}

// ---- eager loops ------------------------------------------------------------------

// Step t of an XS leaf: a number for a rank-1 XS, else a fresh tensor.
Value xs_slice(Value x, int64_t t) {
  Tensor *src = tensor_of(x);
  if (src->shape.rank == 1) return make_double(src->data[t]);
  Shape s;
  s.rank = src->shape.rank - 1;
  for (int d = 1; d < src->shape.rank; d++) s.dim[d - 1] = src->shape.dim[d];
  Tensor *out = alloc_tensor(s);
  std::memcpy(out->data, src->data + t * s.size(), size_t(s.size()) * sizeof(double));
  return from_ptr(out);
}

// A COND result as a truth value: #f stops, #t goes on, a number (or rank-0
// tensor) goes on while nonzero (a traced comparison is 1.0 or 0.0).
bool cond_truth(const char *who, Value c) {
  if (c == FALSE_V) return false;
  if (c == TRUE_V) return true;
  if (is_number(c)) return number_as_double(c) != 0.0;
  if (is_tensor(c) && tensor_of(c)->shape.rank == 0) return tensor_of(c)->data[0] != 0.0;
  throw_errorf("{}: COND must return a boolean or a number, got {}", who, error_value_string(c));
}

// ---- traced loops -------------------------------------------------------------------

struct ScopeGuard {
  Graph &g;
  int32_t mark;
  bool open = true;
  ScopeGuard(Graph &graph, const char *who) : g(graph), mark(graph.size()) { enter_recording_scope(who); }
  void close() {
    if (open) leave_recording_scope();
    open = false;
  }
  ~ScopeGuard() {
    if (open) {  // the body raised: forget what it recorded
      leave_recording_scope();
      g.truncate(mark);
    }
  }
};

Value traced_loop(LoopKind kind, int64_t trips, Value cond_f, Value body_f, Value init, Value xs) {
  const char *who = loop_kind_name(kind);
  Graph &g = traced_graph(who);
  auto L = std::make_shared<LoopBody>();
  L->kind = kind;
  L->trips = kind == LoopKind::While ? -1 : trips;
  Flat ini = check_init(who, init, true, L->carry);
  const size_t nc = L->carry.size();
  std::vector<int32_t> init_nodes, xs_nodes;
  for (int64_t k = 0; k < ini.count; k++) init_nodes.push_back(traced_node(who, ini.leaves[k]));
  Flat xf;
  if (kind == LoopKind::Scan) {
    xf = check_xs(who, xs, true, L->xs, L->trips);
    for (int64_t k = 0; k < xf.count; k++) xs_nodes.push_back(traced_node(who, xf.leaves[k]));
  }
  if (kind == LoopKind::Fori && trips == 0) return init;
  const size_t nx = L->xs.size();

  // The body on stand-ins.
  ScopeGuard scope(g, who);
  const int32_t mark = scope.mark;
  std::vector<int32_t> stand_ins;
  stand_ins.push_back(new_stand_in(g, Shape{}, true));
  for (const LeafSpec &s : L->carry) stand_ins.push_back(new_stand_in(g, s.shape, s.is_number));
  for (const LeafSpec &s : L->xs) stand_ins.push_back(new_stand_in(g, s.shape, s.is_number));
  Value *carry_vals = gc_values(int64_t(nc)), *x_vals = gc_values(int64_t(nx));
  for (size_t k = 0; k < nc; k++) carry_vals[k] = traced_value(stand_ins[1 + k]);
  for (size_t k = 0; k < nx; k++) x_vals[k] = traced_value(stand_ins[1 + nc + k]);
  int64_t at = 0;
  Value carry = tree_rebuild(ini.skeleton, carry_vals, at);
  int32_t cond_node = -1;
  Value new_carry = NIL, ys = NIL;
  const char *what = kind == LoopKind::Scan ? "F" : "the body";
  if (kind == LoopKind::While) {
    Value c = apply_proc(cond_f, 1, &carry);
    LeafSpec cs = spec_of(c);
    if (c == TRUE_V || c == FALSE_V) cond_node = g.constant(c == TRUE_V ? 1.0 : 0.0, true);
    else if ((is_number(c) || is_symbolic_value(c) || is_tensor(c)) && cs.shape.rank == 0)
      cond_node = traced_node(who, c);
    else throw_errorf("{}: COND must return a boolean or a number, got {}", who, error_value_string(c));
    new_carry = apply_proc(body_f, 1, &carry);
  } else if (kind == LoopKind::Fori) {
    Value args[2] = {traced_value(stand_ins[0]), carry};
    new_carry = apply_proc(body_f, 2, args);
  } else {
    at = 0;
    Value args[2] = {carry, tree_rebuild(xf.skeleton, x_vals, at)};
    Value r = apply_proc(body_f, 2, args);
    if (!is_pair(r)) throw_errorf("{}: F must return (NEW-CARRY . Y), got {}", who, error_value_string(r));
    new_carry = car(r);
    ys = cdr(r);
  }
  Flat out = check_carry(who, what, ini, L->carry, new_carry, true);
  std::vector<int32_t> out_nodes;
  for (int64_t k = 0; k < out.count; k++) out_nodes.push_back(traced_node(who, out.leaves[k]));
  Flat yf;
  if (kind == LoopKind::Scan) {
    yf = flatten_tree(who, "F's Y", ys, true);
    for (int64_t k = 0; k < yf.count; k++) {
      L->ys.push_back(spec_of(yf.leaves[k]));
      out_nodes.push_back(traced_node(who, yf.leaves[k]));
    }
  }
  scope.close();

  // Split what was recorded: nodes depending on a stand-in form the body; the
  // rest is re-recorded into the enclosing graph (computed once).
  std::vector<GraphNode> region(g.nodes.begin() + mark, g.nodes.end());
  std::vector<char> dep(region.size(), 0);
  for (size_t i = 0; i < region.size(); i++) {
    const GraphNode &n = region[i];
    if (is_stand_in_node(n)) {
      dep[i] = 1;
      continue;
    }
    for (int q = 0; q < op_arity(n.op); q++)
      if (n.in[q] >= mark && dep[size_t(n.in[q] - mark)]) dep[i] = 1;
  }
  g.truncate(mark);
  std::vector<int32_t> moved(region.size(), -1);
  for (size_t i = 0; i < region.size(); i++) {
    if (dep[i]) continue;
    GraphNode n = region[i];
    for (int q = 0; q < op_arity(n.op); q++)
      if (n.in[q] >= mark) n.in[q] = moved[size_t(n.in[q] - mark)];
    moved[i] = g.record(n);
  }
  // The body graph: params step, carry, xs, then one per captured outer node.
  Graph raw;
  std::vector<int32_t> body_of(region.size(), -1);
  int param = 0;
  body_of[size_t(stand_ins[0] - mark)] = raw.param(param++, ArgSpec{Shape{}, true});
  for (size_t k = 0; k < nc + nx; k++) {
    const LeafSpec &s = k < nc ? L->carry[k] : L->xs[k - nc];
    body_of[size_t(stand_ins[1 + k] - mark)] = raw.param(param++, ArgSpec{s.shape, s.is_number});
  }
  std::unordered_map<int32_t, int32_t> captured;
  std::vector<int32_t> capture_nodes;
  auto operand = [&](int32_t o) -> int32_t {
    if (o >= mark && dep[size_t(o - mark)]) return body_of[size_t(o - mark)];
    int32_t outer = o >= mark ? moved[size_t(o - mark)] : o;
    if (g[outer].op == Op::Const) return raw.record(g[outer]);  // constants stay in the body
    auto it = captured.find(outer);
    if (it != captured.end()) return it->second;
    LeafSpec s{g[outer].shape, g[outer].is_number};
    L->captures.push_back(s);
    capture_nodes.push_back(outer);
    int32_t p = raw.param(int(1 + nc + nx + capture_nodes.size() - 1), ArgSpec{s.shape, s.is_number});
    captured[outer] = p;
    return p;
  };
  for (size_t i = 0; i < region.size(); i++) {
    if (!dep[i] || is_stand_in_node(region[i])) continue;
    GraphNode n = region[i];
    for (int q = 0; q < op_arity(n.op); q++) n.in[q] = operand(n.in[q]);
    body_of[i] = raw.record(n);
  }
  std::vector<int32_t> body_outs;
  for (int32_t o : out_nodes) body_outs.push_back(operand(o));
  int32_t body_cond = cond_node >= 0 ? operand(cond_node) : -1;
  raw.num_params = int(1 + nc + nx + capture_nodes.size());
  raw.adopt_constants(g);
  for (int32_t o : body_outs) raw.outputs.push_back({o, raw[o].is_number});
  L->body = std::make_shared<Graph>();
  optimise_into(raw, *L->body);
  if (body_cond >= 0) {
    raw.outputs = {{body_cond, true}};
    L->cond = std::make_shared<Graph>();
    optimise_into(raw, *L->cond);
  }

  // The Loop node on packed operands, and the user's leaves taken out of it.
  auto pack = [&](const std::vector<int32_t> &nodes) {
    int32_t acc = -1;
    for (int32_t x : nodes) {
      int32_t flat = g.reshape(x, Shape::of({g[x].size()}), false);
      acc = acc < 0 ? flat : g.concat(acc, flat, 0);
    }
    return acc < 0 ? g.constant(0.0, true) : acc;
  };
  std::vector<int32_t> consts = capture_nodes;
  consts.insert(consts.end(), xs_nodes.begin(), xs_nodes.end());
  GraphNode n;
  n.op = Op::Loop;
  n.loop = L.get();
  n.in[0] = pack(init_nodes);
  n.in[1] = pack(consts);
  n.shape = Shape::of({L->result_size()});
  g.keep_loop(L.get());
  int32_t loop = g.record(n);
  int64_t offset = 0;
  auto take = [&](const LeafSpec &s, int64_t steps) {
    Shape shape = s.shape;
    int64_t size = shape.size() * (steps > 0 ? steps : 1);
    if (steps > 0) {
      for (int d = shape.rank; d > 0; d--) shape.dim[d] = shape.dim[d - 1];
      shape.dim[0] = steps;
      shape.rank++;
    }
    int32_t piece = g.slice(loop, 0, offset, size);
    offset += size;
    return traced_value(g.reshape(piece, shape, steps == 0 && s.is_number));
  };
  Value *results = gc_values(int64_t(nc));
  for (size_t k = 0; k < nc; k++) results[k] = take(L->carry[k], 0);
  at = 0;
  Value final_carry = tree_rebuild(ini.skeleton, results, at);
  if (kind != LoopKind::Scan) return final_carry;
  Value *stacked = gc_values(yf.count);
  for (int64_t k = 0; k < yf.count; k++) stacked[k] = take(L->ys[size_t(k)], L->trips);
  at = 0;
  return cons(final_carry, tree_rebuild(yf.skeleton, stacked, at));
}

}  // namespace

Value fori_loop(Value n, Value body, Value init) {
  const char *who = "fori-loop";
  if (is_symbolic_value(n))
    throw_error(
        "fori-loop: N must be an exact integer known while tracing, got a traced value (a loop whose count "
        "comes from data is a while-loop)");
  int64_t trips = arg_index(who, 1, n);
  arg_proc(who, 2, body);
  if (tracing_active()) return traced_loop(LoopKind::Fori, trips, NIL, body, init, NIL);
  std::vector<LeafSpec> specs;
  Flat ini = check_init(who, init, false, specs);
  Value carry = init;
  for (int64_t i = 0; i < trips; i++) {
    Value args[2] = {make_int(i), carry};
    carry = apply_proc(body, 2, args);
    check_carry(who, "the body", ini, specs, carry, false);
  }
  return carry;
}

Value scan_loop(Value f, Value init, Value xs) {
  const char *who = "scan";
  arg_proc(who, 1, f);
  if (tracing_active()) return traced_loop(LoopKind::Scan, 0, NIL, f, init, xs);
  std::vector<LeafSpec> specs, slices, y_specs;
  Flat ini = check_init(who, init, false, specs);
  int64_t steps = 0;
  Flat xf = check_xs(who, xs, false, slices, steps);
  Value carry = init;
  Flat first_y;
  Value *x_vals = gc_values(xf.count);
  Tensor **stacked = nullptr;
  for (int64_t t = 0; t < steps; t++) {
    for (int64_t k = 0; k < xf.count; k++) x_vals[k] = xs_slice(xf.leaves[k], t);
    int64_t at = 0;
    Value args[2] = {carry, tree_rebuild(xf.skeleton, x_vals, at)};
    Value r = apply_proc(f, 2, args);
    if (!is_pair(r)) throw_errorf("{}: F must return (NEW-CARRY . Y), got {}", who, error_value_string(r));
    carry = car(r);
    check_carry(who, "F", ini, specs, carry, false);
    Flat y = flatten_tree(who, "F's Y", cdr(r), false);
    if (t == 0) {
      first_y = y;
      stacked = static_cast<Tensor **>(gc_alloc(sizeof(Tensor *) * size_t(y.count + 1)));
      for (int64_t k = 0; k < y.count; k++) {
        LeafSpec s = spec_of(y.leaves[k]);
        y_specs.push_back(s);
        Shape shape;
        shape.rank = s.shape.rank + 1;
        shape.dim[0] = steps;
        for (int d = 0; d < s.shape.rank; d++) shape.dim[d + 1] = s.shape.dim[d];
        stacked[k] = alloc_tensor(shape);
      }
    } else {
      if (!equal(y.skeleton, first_y.skeleton))
        throw_errorf("{}: F's Y at step {} differs in structure from step 1's, got {}", who, t + 1,
                     error_value_string(cdr(r)));
      for (int64_t k = 0; k < y.count; k++) {
        LeafSpec s = spec_of(y.leaves[k]);
        if (!same_spec(s, y_specs[size_t(k)]))
          throw_errorf("{}: F's Y leaf {} is {} at step {} but {} at step 1", who, k + 1, spec_text(s), t + 1,
                       spec_text(y_specs[size_t(k)]));
      }
    }
    for (int64_t k = 0; k < y.count; k++) {
      Value v = y.leaves[k];
      int64_t size = y_specs[size_t(k)].shape.size();
      double *dst = stacked[k]->data + t * size;
      if (is_tensor(v)) std::memcpy(dst, tensor_of(v)->data, size_t(size) * sizeof(double));
      else *dst = number_as_double(v);
    }
  }
  Value *ys = gc_values(first_y.count);
  for (int64_t k = 0; k < first_y.count; k++) ys[k] = from_ptr(stacked[k]);
  int64_t at = 0;
  return cons(carry, tree_rebuild(first_y.skeleton, ys, at));
}

Value while_loop(Value cond, Value body, Value init) {
  const char *who = "while-loop";
  arg_proc(who, 1, cond);
  arg_proc(who, 2, body);
  if (tracing_active()) return traced_loop(LoopKind::While, -1, cond, body, init, NIL);
  std::vector<LeafSpec> specs;
  Flat ini = check_init(who, init, false, specs);
  Value carry = init;
  while (cond_truth(who, apply_proc(cond, 1, &carry))) {
    carry = apply_proc(body, 1, &carry);
    check_carry(who, "the body", ini, specs, carry, false);
  }
  return carry;
}

}  // namespace kiln

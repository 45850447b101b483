// graph_build.cpp — trace, differentiate, optimise (graph_build.h).
#include "compiler/graph_build.h"

#include "compiler/autodiff.h"
#include "compiler/optimise.h"
#include "compiler/trace.h"
#include "runtime/args.h"
#include "runtime/error.h"
#include "runtime/gc.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"

namespace kiln {

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

Value *argument_leaves(const char *who, const TreeLayout &layout, const Value *args,
                       std::vector<ArgSpec> &specs) {
  int64_t n = layout.nleaves();
  auto *leaves = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(n + 1)));
  flatten_arguments(layout, args, leaves);
  specs.clear();
  for (int64_t k = 0; k < n; k++) specs.push_back(arg_spec_of(who, 0, leaves[k]));
  return leaves;
}

namespace {

// The graph a trace records into: reused, so tracing allocates almost nothing.
// Traces never nest (trace_into refuses), so one per thread suffices.
Graph &recording_graph(const char *who) {
  static thread_local Graph scratch;
  if (tracing_active()) throw_errorf("graph: '{}' is not supported inside a traced function", who);
  scratch.clear();
  return scratch;
}

}  // namespace

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
  build_graph_into(result, who, f, *flat_layout(argc, false), args);
}

void build_grad_graph_into(Graph &result, const char *who, Value f, int argc, const ArgSpec *args) {
  build_graph_into(result, who, f, *flat_layout(argc, true), args);
}

void build_graph_into(Graph &result, const char *who, Value f, TreeLayout &layout, const ArgSpec *specs) {
  Graph &g = recording_graph(who);
  static thread_local std::vector<int32_t> outs;
  layout.out_skeleton = trace_into(g, who, f, layout, specs, layout.grad && layout.with_aux, outs);
  if (!layout.grad) {
    for (int32_t o : outs) g.outputs.push_back({o, g[o].is_number && g[o].shape.rank == 0});
    optimise_into(g, result);
    return;
  }
  // Before reading outs[0]: a tree result may have no leaves at all.
  if (!layout.with_aux && layout.out_skeleton != TRUE_V)
    throw_errorf("{}: the loss must be a scalar, got a tree", who);
  int32_t loss = outs[0];
  if (g[loss].shape.rank != 0) {
    const Shape &s = g[loss].shape;
    throw_errorf("{}: the loss must be a scalar, got a {} tensor", who, shape_string(s));
  }
  std::vector<int32_t> wrt;
  for (int64_t k : wrt_leaves(layout)) wrt.push_back(int32_t(k));
  // Params are nodes 0..nleaves-1 in leaf order (trace_into records them first).
  std::vector<int32_t> grads = append_gradients(g, loss, wrt);
  g.outputs.push_back({loss, true});
  for (size_t j = 1; j < outs.size(); j++)
    g.outputs.push_back({outs[j], g[outs[j]].is_number && g[outs[j]].shape.rank == 0});
  for (size_t j = 0; j < wrt.size(); j++) g.outputs.push_back({grads[j], specs[wrt[j]].is_number});
  optimise_into(g, result);
}

}  // namespace kiln

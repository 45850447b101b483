// graph_build.cpp — trace, differentiate, optimise (graph_build.h).
#include "graph_build.h"

#include "../runtime/args.h"
#include "../runtime/error.h"
#include "../runtime/printer.h"
#include "../runtime/tensor.h"
#include "autodiff.h"
#include "optimise.h"
#include "trace.h"

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

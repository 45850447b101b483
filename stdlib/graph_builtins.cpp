// graph_builtins.cpp — the Lisp face of the graph module (docs/graph.md): graph-ir,
// graph-node-count, graph-eval, graph-dot and graph-grad.
//
// Invariant: every builtin here traces F afresh (like a dynamic framework), so
// each call sees the current values of F's captured variables; the graph lives
// only for the call (a std::unique_ptr), and only Lisp values made from it
// escape.
#include <vector>

#include "../compiler/graph.h"
#include "../compiler/graph_build.h"
#include "../compiler/graph_dot.h"
#include "../compiler/graph_eval.h"
#include "../compiler/trace.h"
#include "../runtime/eval_internal.h"
#include "../runtime/tensor.h"
#include "builtins.h"

namespace kiln {
namespace {

int procedure_arity(Value f) {
  if (is_closure(f)) return as<Closure>(f)->lam->nreq;
  if (is_builtin(f)) return as<Builtin>(f)->min_args;
  return 0;
}

// argv = F ARG...; `allow_shapeless`: no ARGs means one scalar param per
// required parameter of F (graph-ir, graph-node-count, graph-dot).
void specs_of(const char *who, int argc, Value *argv, bool allow_shapeless, std::vector<ArgSpec> &specs) {
  arg_proc(who, 1, argv[0]);
  specs.clear();
  if (argc == 1 && allow_shapeless) {
    specs.resize(size_t(procedure_arity(argv[0])));
    return;
  }
  for (int i = 1; i < argc; i++) specs.push_back(arg_spec_of(who, i + 1, argv[i]));
}

// Leading 'grad selects the forward+backward graph (graph-ir, graph-dot).
bool strip_grad(int &argc, Value *&argv) {
  if (argc >= 2 && argv[0] == intern("grad")) {
    argc--;
    argv++;
    return true;
  }
  return false;
}

// The graph of the current call: one per thread, reused so a training loop's
// graph-grad does not allocate a graph per step. Valid until the next build;
// nothing here calls Lisp code between building and using it.
Graph &build(const char *who, bool grad, int argc, Value *argv, bool allow_shapeless) {
  static thread_local Graph graph;
  if (tracing_active()) throw_errorf("graph: '{}' is not supported inside a traced function", who);
  static thread_local std::vector<ArgSpec> specs;
  specs_of(who, argc, argv, allow_shapeless, specs);
  if (grad) build_grad_graph_into(graph, who, argv[0], int(specs.size()), specs.data());
  else build_forward_graph_into(graph, who, argv[0], int(specs.size()), specs.data());
  return graph;
}

Value shape_attr(const char *tag, const Shape &s) {
  Value r = NIL;
  for (int i = s.rank - 1; i >= 0; i--) r = cons(make_int(s.dim[i]), r);
  return cons(intern(tag), r);
}

// (INDEX OP OPERAND... [ATTRIBUTES]) for one node.
Value node_entry(const Graph &g, int32_t i) {
  const GraphNode &n = g[i];
  // On the stack (not in a std::vector) so the collector sees a new tensor here.
  Value items[8];
  int count = 0;
  auto push = [&](Value v) { items[count++] = v; };
  push(make_int(i));
  push(intern(op_name(n.op)));
  if (n.op == Op::Param) push(make_int(n.param_index));
  if (n.op == Op::Const) {
    if (n.const_data) {
      Tensor *t = alloc_tensor(n.shape);
      for (int64_t k = 0; k < n.size(); k++) t->data[k] = n.const_data[k];
      push(from_ptr(t));
    } else {
      push(make_double(n.scalar));
    }
  }
  for (int k = 0; k < op_arity(n.op); k++) push(make_int(n.in[k]));
  switch (n.op) {
  case Op::SumAxis:
  case Op::MeanAxis:
  case Op::MaxAxis:
    push(n.keepdims ? list3(intern("axis"), make_int(n.axis), intern("keepdims"))
                    : list2(intern("axis"), make_int(n.axis)));
    break;
  case Op::MaxMask:
    if (n.axis >= 0) push(list2(intern("axis"), make_int(n.axis)));
    break;
  case Op::Transpose: {
    Value p = NIL;
    for (int d = n.shape.rank - 1; d >= 0; d--) p = cons(make_int(n.perm[d]), p);
    push(cons(intern("perm"), p));
    break;
  }
  case Op::SumTo:
  case Op::BroadcastTo:
  case Op::Reshape: push(shape_attr("shape", n.shape)); break;
  case Op::Slice:
    push(list2(intern("axis"), make_int(n.axis)));
    push(list3(intern("range"), make_int(n.offset), make_int(n.offset + n.shape.dim[n.axis])));
    break;
  case Op::Pad:
    push(list2(intern("axis"), make_int(n.axis)));
    push(list2(intern("at"), make_int(n.offset)));
    push(shape_attr("shape", n.shape));
    break;
  case Op::Concat: push(list2(intern("axis"), make_int(n.axis))); break;
  default: break;
  }
  return list_from(items, count);
}

Value b_graph_ir(int argc, Value *argv) {
  bool grad = strip_grad(argc, argv);
  Graph *g = &build("graph-ir", grad, argc, argv, true);
  Value table = NIL;
  for (int32_t i = g->size() - 1; i >= 0; i--) table = cons(node_entry(*g, i), table);
  Value out;
  if (grad) {
    out = NIL;
    for (size_t k = g->outputs.size(); k-- > 0;) out = cons(make_int(g->outputs[k].node), out);
  } else {
    out = make_int(g->outputs[0].node);
  }
  return list2(table, out);
}

Value b_graph_node_count(int argc, Value *argv) {
  return make_int(build("graph-node-count", false, argc, argv, true).size());
}

Value b_graph_dot(int argc, Value *argv) {
  bool grad = strip_grad(argc, argv);
  Graph *g = &build("graph-dot", grad, argc, argv, true);
  return make_string(graph_to_dot(*g));
}

Value b_graph_eval(int argc, Value *argv) {
  Graph *g = &build("graph-eval", false, argc, argv, false);
  Value result;
  graph_eval(*g, argv + 1, &result);
  return result;
}

Value b_graph_grad(int argc, Value *argv) {
  Graph *g = &build("graph-grad", true, argc, argv, false);
  size_t n = g->outputs.size();
  auto *results = static_cast<Value *>(gc_alloc(n * sizeof(Value)));
  graph_eval(*g, argv + 1, results);
  return list_from(results, int64_t(n));
}

BuiltinRegistrar reg([] {
  defbuiltin(
      "graph-ir", 1, -1, b_graph_ir,
      "(graph-ir ['grad] F ARG...): the optimised graph of F traced at ARGs' shapes: ((NODE...) OUTPUT).");
  defbuiltin("graph-node-count", 1, -1, b_graph_node_count,
             "(graph-node-count F ARG...): the number of nodes in F's optimised graph.");
  defbuiltin("graph-eval", 1, -1, b_graph_eval,
             "(graph-eval F ARG...): F's value computed by the graph interpreter.");
  defbuiltin(
      "graph-dot", 1, -1, b_graph_dot,
      "(graph-dot ['grad] F ARG...): a Graphviz DOT string of F's optimised (forward+backward) graph.");
  defbuiltin(
      "graph-grad", 1, -1, b_graph_grad,
      "(graph-grad F ARG...): (LOSS G1 G2 ...): F's scalar value and its gradient for every argument.");
});

}  // namespace
}  // namespace kiln

// graph_builtins.cpp — the Lisp face of the graph module (docs/graph.md): graph-ir,
// graph-node-count, graph-eval, graph-dot and graph-grad.
//
// Invariant: every builtin here traces F afresh (like a dynamic framework), so
// each call sees the current values of F's captured variables; the graph lives
// only for the call (a std::unique_ptr), and only Lisp values made from it
// escape.
#include <vector>

#include "compiler/collective.h"
#include "compiler/graph.h"
#include "compiler/graph_build.h"
#include "compiler/graph_dot.h"
#include "compiler/graph_eval.h"
#include "compiler/loop.h"
#include "compiler/trace.h"
#include "compiler/tree.h"
#include "runtime/eval_internal.h"
#include "runtime/tensor.h"
#include "stdlib/builtins.h"

namespace kiln {
namespace {

int procedure_arity(Value f) {
  if (is_closure(f)) return as<Closure>(f)->lam->nreq;
  if (is_builtin(f)) return as<Builtin>(f)->min_args;
  return 0;
}

// The graph of the current call and how its arguments and results are laid
// out. The graph is one per thread, reused so a training loop's graph-grad does
// not allocate a graph per step; valid until the next build (nothing here calls
// Lisp code between building and using it). `leaves` and `layout` are GC memory
// and reachable from the caller's stack.
struct Built {
  Graph *graph;
  TreeLayout *layout;
  Value *leaves;  // layout->nleaves() argument leaves, the graph's params in order
};

// What a build is asked for beyond F and its arguments.
struct BuildOptions {
  bool grad = false;
  bool with_aux = false;
  bool allow_shapeless = false;  // no ARGs: one scalar param per required parameter of F
  Value argnums = FALSE_V;       // grad: #f (every argument), an index or a list of them
  int pos_offset = 1;            // builtin argument position of F's first argument, minus 1
};

void select_argnums(const char *who, TreeLayout &layout, Value argnums) {
  if (argnums == FALSE_V) return;
  Value list = is_pair(argnums) || argnums == NIL ? argnums : cons(argnums, NIL);
  int64_t n = arg_list_length(who, 2, list);
  if (n == 0) throw_errorf("{}: ARGNUMS must name at least one argument", who);
  layout.nwrt = 0;
  for (Value c = list; is_pair(c); c = cdr(c)) {
    Value x = car(c);
    if (!is_fixnum(x) || fixnum_of(x) < 0 || fixnum_of(x) >= layout.nargs)
      throw_errorf("{}: ARGNUMS names argument {}, but the call has {} argument{}", who,
                   error_value_string(x), layout.nargs, layout.nargs == 1 ? "" : "s");
    int32_t idx = int32_t(fixnum_of(x));
    for (int32_t j = 0; j < layout.nwrt; j++)
      if (layout.wrt[j] == idx) throw_errorf("{}: ARGNUMS names argument {} twice", who, idx);
    layout.wrt[layout.nwrt++] = idx;
  }
}

Built build(const char *who, Value f, int argc, Value *args, const BuildOptions &opt) {
  static thread_local Graph graph;
  if (tracing_active()) throw_errorf("graph: '{}' is not supported inside a traced function", who);
  arg_proc(who, 1, f);
  static thread_local std::vector<ArgSpec> specs;
  TreeLayout *layout;
  Value *leaves = nullptr;
  if (argc == 0 && opt.allow_shapeless) {
    layout = flat_layout(procedure_arity(f), opt.grad);
    specs.assign(size_t(layout->nleaves()), ArgSpec{});
  } else {
    layout = layout_arguments(who, argc, args, opt.pos_offset, false);
    layout->grad = opt.grad;
    leaves = argument_leaves(who, *layout, args, specs);
  }
  layout->with_aux = opt.with_aux;
  if (opt.grad) select_argnums(who, *layout, opt.argnums);
  build_graph_into(graph, who, f, *layout, specs.data());
  return Built{&graph, layout, leaves};
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

Built build_for(const char *who, bool grad, int argc, Value *argv, bool allow_shapeless) {
  BuildOptions opt;
  opt.grad = grad;
  opt.allow_shapeless = allow_shapeless;
  return build(who, argv[0], argc - 1, argv + 1, opt);
}

Value run(const Built &b) {
  const Graph &g = *b.graph;
  auto *results = static_cast<Value *>(gc_alloc(g.outputs.size() * sizeof(Value) + sizeof(Value)));
  graph_eval(g, b.leaves, results);
  return assemble_results(*b.layout, results);
}

// graph-grad and the grad procedures: inside a traced function (arguments
// holding symbolic values) they record into the enclosing trace.
Value grad_call(const char *who, Value f, int argc, Value *args, const BuildOptions &opt) {
  if (!tracing_active()) return run(build(who, f, argc, args, opt));
  arg_proc(who, 1, f);
  TreeLayout *layout = layout_arguments(who, argc, args, opt.pos_offset, true);
  layout->grad = true;
  layout->with_aux = opt.with_aux;
  select_argnums(who, *layout, opt.argnums);
  return trace_nested_grad(who, f, *layout, args);
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
  // The row's attributes (runtime/op_table.h), in OpAttr's order; an index's
  // use only changes error text, so it is not shown.
  if (op_has(n.op, kAttrAxis) || (op_has(n.op, kAttrWholeOrAxis) && n.axis >= 0))
    push(op_has(n.op, kAttrKeepdims) && n.keepdims
             ? list3(intern("axis"), make_int(n.axis), intern("keepdims"))
             : list2(intern("axis"), make_int(n.axis)));
  if (op_has(n.op, kAttrRange))
    push(list3(intern("range"), make_int(n.offset), make_int(n.offset + n.shape.dim[n.axis])));
  if (op_has(n.op, kAttrAt)) push(list2(intern("at"), make_int(n.offset)));
  if (op_has(n.op, kAttrRandomKind))
    push(list2(intern("kind"), intern(random_kind_name(RandomKind(n.axis)))));
  if (op_has(n.op, kAttrReduce)) push(list2(intern("reduce"), intern(reduce_kind_name(ReduceKind(n.axis)))));
  if (op_has(n.op, kAttrPerm)) {
    Value p = NIL;
    for (int d = n.shape.rank - 1; d >= 0; d--) p = cons(make_int(n.perm[d]), p);
    push(cons(intern("perm"), p));
  }
  if (op_has(n.op, kAttrShape)) push(shape_attr("shape", n.shape));
  if (op_has(n.op, kAttrLoop))
    push(list3(intern("loop"), intern(loop_kind_name(n.loop->kind)), make_int(n.loop->trips)));
  return list_from(items, count);
}

Value b_graph_ir(int argc, Value *argv) {
  bool grad = strip_grad(argc, argv);
  Built b = build_for("graph-ir", grad, argc, argv, true);
  Graph *g = b.graph;
  Value table = NIL;
  for (int32_t i = g->size() - 1; i >= 0; i--) table = cons(node_entry(*g, i), table);
  Value out;
  if (grad) {
    out = NIL;
    for (size_t k = g->outputs.size(); k-- > 0;) out = cons(make_int(g->outputs[k].node), out);
  } else {
    // The result's tree, with node indices as leaves.
    size_t n = g->outputs.size();
    auto *idx = static_cast<Value *>(gc_alloc(n * sizeof(Value) + sizeof(Value)));
    for (size_t k = 0; k < n; k++) idx[k] = make_int(g->outputs[k].node);
    out = assemble_results(*b.layout, idx);
  }
  return list2(table, out);
}

Value b_graph_node_count(int argc, Value *argv) {
  return make_int(build_for("graph-node-count", false, argc, argv, true).graph->size());
}

Value b_graph_dot(int argc, Value *argv) {
  bool grad = strip_grad(argc, argv);
  Graph *g = build_for("graph-dot", grad, argc, argv, true).graph;
  return make_string(graph_to_dot(*g));
}

// Inside a traced function, graph-eval is F called on its arguments: the same
// nodes, recorded into the enclosing trace.
Value b_graph_eval(int argc, Value *argv) {
  if (tracing_active()) {
    arg_proc("graph-eval", 1, argv[0]);
    layout_arguments("graph-eval", argc - 1, argv + 1, 1, true);
    return apply_proc(argv[0], argc - 1, argv + 1);
  }
  return run(build_for("graph-eval", false, argc, argv, false));
}

Value b_graph_grad(int argc, Value *argv) {
  BuildOptions opt;
  opt.grad = true;
  return grad_call("graph-grad", argv[0], argc - 1, argv + 1, opt);
}

// The procedure (grad F [ARGNUMS]) and (grad-with-aux F [ARGNUMS]) return: a
// registered object type whose apply hook differentiates F at its arguments.
struct GradProc {
  ObjHeader h;
  Value f;
  Value argnums;  // #f: every argument
  bool with_aux;
};

uint8_t grad_proc_type() {
  static const uint8_t type = [] {
    uint8_t t = register_object_type("grad procedure");
    TypeHooks &h = g_type_hooks[t];
    h.print = [](std::string &out, Value v, bool) {
      out += as<GradProc>(v)->with_aux ? "#<procedure grad-with-aux>" : "#<procedure grad>";
    };
    h.apply = [](Value self, int argc, Value *argv) {
      GradProc *p = as<GradProc>(self);
      BuildOptions opt;
      opt.grad = true;
      opt.with_aux = p->with_aux;
      opt.argnums = p->argnums;
      opt.pos_offset = 0;
      return grad_call(p->with_aux ? "grad-with-aux" : "grad", p->f, argc, argv, opt);
    };
    return t;
  }();
  return type;
}

Value make_grad_proc(const char *who, int argc, Value *argv, bool with_aux) {
  arg_proc(who, 1, argv[0]);
  Value nums = FALSE_V;
  if (argc == 2) {
    nums = argv[1];
    Value list = is_pair(nums) || nums == NIL ? nums : cons(nums, NIL);
    bool ok = list_length(list) > 0;
    for (Value c = list; ok && is_pair(c); c = cdr(c)) ok = is_fixnum(car(c)) && fixnum_of(car(c)) >= 0;
    if (!ok) type_error(who, 2, "an argument index or a non-empty list of them", nums);
  }
  GradProc *p = alloc_obj<GradProc>(grad_proc_type());
  p->f = argv[0];
  p->argnums = nums;
  p->with_aux = with_aux;
  return from_ptr(p);
}

Value b_grad(int argc, Value *argv) { return make_grad_proc("grad", argc, argv, false); }
Value b_grad_with_aux(int argc, Value *argv) { return make_grad_proc("grad-with-aux", argc, argv, true); }

BuiltinRegistrar graph_builtins_registrar([] {
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
  defbuiltin(
      "grad", 1, 2, b_grad,
      "(grad F [ARGNUMS]): a procedure; ((grad F) ARG...) is (graph-grad F ARG...), and with ARGNUMS (an "
      "index or a list of them, from 0) (LOSS Gi ...) for those arguments only.");
  defbuiltin(
      "grad-with-aux", 1, 2, b_grad_with_aux,
      "(grad-with-aux F [ARGNUMS]): like grad for an F returning (LOSS . AUX); its procedure returns (LOSS "
      "AUX Gi ...).");
});

}  // namespace
}  // namespace kiln

// vmap_builtins.cpp — (vmap F [IN-AXES [OUT-AXES]]) (docs/graph.md, "vmap").
//
// Invariant: there is one batching path. Called inside a trace (jit, grad, another
// vmap), the procedure records F's batched graph into that trace
// (trace_nested_vmap); called eagerly, it traces itself on its arguments into a
// graph of its own and evaluates that graph, so the eager, graph-eval and jit
// results come from the same batched nodes.
#include <vector>

#include "compiler/graph.h"
#include "compiler/graph_build.h"
#include "compiler/graph_eval.h"
#include "compiler/trace.h"
#include "compiler/tree.h"
#include "runtime/eval_internal.h"
#include "runtime/tensor.h"
#include "stdlib/builtins.h"

namespace kiln {
namespace {

constexpr const char *kWho = "vmap";

struct VmapProc {
  ObjHeader h;
  Value f;
  Value in_axes;  // an axis or #f for every argument, or a list of one per argument
  int out_axis;
};

bool is_axis_spec(Value v) { return v == FALSE_V || is_fixnum(v); }

// "argument 2" or "argument 2, leaf 3" (from 1), as the tree errors name leaves.
std::string leaf_name(const TreeLayout &layout, int arg, int64_t leaf) {
  std::string s = "argument " + std::to_string(arg + 1);
  if (layout.first_leaf[arg + 1] - layout.first_leaf[arg] != 1 || is_tree_branch(layout.arg_skeletons[arg]))
    s += ", leaf " + std::to_string(leaf - layout.first_leaf[arg] + 1);
  return s;
}

// Each leaf's batch axis (-1: not mapped), checked against its shape; returns
// the batch size.
int64_t leaf_axes(const VmapProc &p, const TreeLayout &layout, const Value *leaves, std::vector<int> &axes) {
  int argc = layout.nargs;
  if (is_pair(p.in_axes) || p.in_axes == NIL) {
    int64_t n = list_length(p.in_axes);
    if (n != argc)
      throw_errorf("vmap: IN-AXES has {} entr{}, but the call has {} argument{}", n, n == 1 ? "y" : "ies",
                   argc, argc == 1 ? "" : "s");
  }
  axes.assign(size_t(layout.nleaves()), -1);
  int64_t batch = -1;
  std::string batch_from;
  Value spec_list = p.in_axes;
  for (int i = 0; i < argc; i++) {
    Value spec = p.in_axes;
    if (is_pair(spec_list)) {
      spec = car(spec_list);
      spec_list = cdr(spec_list);
    }
    if (spec == FALSE_V) continue;
    int64_t want = fixnum_of(spec);
    for (int64_t k = layout.first_leaf[i]; k < layout.first_leaf[i + 1]; k++) {
      Shape s;
      bool number = false;
      if (!symbolic_shape(leaves[k], s, number)) {
        number = is_number(leaves[k]);
        if (!number) s = tensor_of(leaves[k])->shape;
      }
      if (number)
        throw_errorf("vmap: {}: a number has no axis to map over, got IN-AXES {} (give #f for it)",
                     leaf_name(layout, i, k), want);
      int64_t axis = want < 0 ? want + s.rank : want;
      if (axis < 0 || axis >= s.rank)
        throw_errorf("vmap: {}: axis {} is out of range for a {} tensor", leaf_name(layout, i, k), want,
                     shape_string(s));
      axes[size_t(k)] = int(axis);
      if (batch < 0) {
        batch = s.dim[axis];
        batch_from = leaf_name(layout, i, k);
      } else if (s.dim[axis] != batch) {
        throw_errorf(
            "vmap: {} has length {} along its mapped axis {}, but {} has {}; mapped axes must have one "
            "length",
            leaf_name(layout, i, k), s.dim[axis], axis, batch_from, batch);
      }
    }
  }
  if (batch < 0)
    throw_errorf("vmap: IN-AXES maps no argument (every entry is #f, or no argument has leaves)");
  return batch;
}

Value call_vmap(Value self, int argc, Value *argv) {
  auto *p = as<VmapProc>(self);
  bool traced = tracing_active();
  TreeLayout *layout = layout_arguments(kWho, argc, argv, 0, traced);
  if (!traced) {
    // Trace this procedure on the arguments (the branch below batches F into
    // that trace), then evaluate the batched graph.
    std::vector<ArgSpec> specs;
    Value *leaves = argument_leaves(kWho, *layout, argv, specs);
    Graph graph;
    build_graph_into(graph, kWho, self, *layout, specs.data());
    auto *results = static_cast<Value *>(gc_alloc(graph.outputs.size() * sizeof(Value) + sizeof(Value)));
    graph_eval(graph, leaves, results);
    return assemble_results(*layout, results);
  }
  auto *leaves = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(layout->nleaves() + 1)));
  flatten_arguments(*layout, argv, leaves);
  std::vector<int> axes;
  int64_t batch = leaf_axes(*p, *layout, leaves, axes);
  return trace_nested_vmap(p->f, *layout, argv, axes.data(), batch, p->out_axis);
}

uint8_t vmap_proc_type() {
  static const uint8_t type = [] {
    uint8_t t = register_object_type("vmap procedure");
    TypeHooks &h = g_type_hooks[t];
    h.print = [](std::string &out, Value, bool) { out += "#<procedure vmap>"; };
    h.apply = call_vmap;
    return t;
  }();
  return type;
}

Value b_vmap(int argc, Value *argv) {
  arg_proc(kWho, 1, argv[0]);
  Value in_axes = make_fixnum(0);
  if (argc >= 2) {
    in_axes = argv[1];
    bool ok = is_axis_spec(in_axes);
    if (!ok && (is_pair(in_axes) || in_axes == NIL)) {
      ok = list_length(in_axes) >= 0;
      for (Value c = in_axes; ok && is_pair(c); c = cdr(c)) ok = is_axis_spec(car(c));
    }
    if (!ok) type_error(kWho, 2, "an axis, #f or a list of one of them per argument", in_axes);
  }
  int out_axis = 0;
  if (argc == 3) {
    if (!is_fixnum(argv[2]) || fixnum_of(argv[2]) < -kMaxRank - 1 || fixnum_of(argv[2]) > kMaxRank)
      type_error(kWho, 3, "an axis (an exact integer)", argv[2]);
    out_axis = int(fixnum_of(argv[2]));
  }
  VmapProc *p = alloc_obj<VmapProc>(vmap_proc_type());
  p->f = argv[0];
  p->in_axes = in_axes;
  p->out_axis = out_axis;
  return from_ptr(p);
}

BuiltinRegistrar vmap_builtins_registrar([] {
  defbuiltin("vmap", 1, 3, b_vmap,
             "(vmap F [IN-AXES [OUT-AXES]]): a procedure mapping F over an axis of its arguments without "
             "unrolling (IN-AXES: per argument an axis or #f, default 0; results stacked along OUT-AXES, "
             "default 0).");
});

}  // namespace
}  // namespace kiln

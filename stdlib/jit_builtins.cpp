// jit_builtins.cpp — graph-compile and graph-compile-grad (docs/jit.md), and the
// `kiln --jit-check` hook.
//
// Invariant: a kernel is built from exactly the optimised graph graph-eval /
// graph-grad interpret (build_forward_graph / build_grad_graph), so the compiled
// and interpreted paths agree bit for bit.
#include <vector>

#include "../compiler/graph.h"
#include "../compiler/graph_build.h"
#include "../compiler/jit_context.h"
#include "../compiler/kernel_object.h"
#include "builtins.h"

namespace kiln {

// runtime/eval.cpp (declared in eval_internal.h, whose Node clashes with graph.h's).
Value closure_name(Value closure);

namespace {

std::string procedure_name(Value f) {
  if (is_closure(f)) {
    Value n = closure_name(f);
    if (n != NOVALUE && is_symbol(n)) return std::string(symbol_name(n));
  } else if (is_builtin(f)) {
    return as<Builtin>(f)->name;
  }
  return "anonymous";
}

Value compile_common(const char *who, int argc, Value *argv, bool grad) {
  Value f = arg_proc(who, 1, argv[0]);
  TreeLayout *layout = layout_arguments(who, argc - 1, argv + 1, 1, false);
  layout->grad = grad;
  int64_t n = layout->nleaves();
  auto *leaves = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(n + 1)));
  flatten_arguments(*layout, argv + 1, leaves);
  std::vector<ArgSpec> specs;
  for (int64_t k = 0; k < n; k++) specs.push_back(arg_spec_of(who, 0, leaves[k]));
  auto g = std::make_unique<Graph>();
  build_graph_into(*g, who, f, *layout, specs.data());
  return make_kernel(procedure_name(f), std::move(g), specs.data(), layout);
}

Value b_graph_compile(int argc, Value *argv) { return compile_common("graph-compile", argc, argv, false); }
Value b_graph_compile_grad(int argc, Value *argv) {
  return compile_common("graph-compile-grad", argc, argv, true);
}
Value b_kernel_p(int, Value *argv) { return boolv(is_kernel(argv[0])); }

BuiltinRegistrar reg([] {
  register_kernel_type();
  jit_exclude_from_gc_roots();
  defbuiltin(
      "graph-compile", 1, -1, b_graph_compile,
      "(graph-compile F ARG...) compiles F's optimised graph, specialised to the shapes of the example "
      "ARGs, to a native kernel computing F's value.");
  defbuiltin("graph-compile-grad", 1, -1, b_graph_compile_grad,
             "(graph-compile-grad F ARG...) compiles F's forward+backward graph to a native kernel returning "
             "exactly what (graph-grad F ARG...) returns, bit for bit.");
  defbuiltin("kernel?", 1, 1, b_kernel_p, "(kernel? X) is #t when X is a compiled kernel.");
});

}  // namespace
}  // namespace kiln

// loop_builtins.cpp — fori-loop, scan and while-loop (SPEC §15; compiler/loop_forms.h
// holds both the eager loops and their traced Loop nodes).
//
// Invariant: each builtin is a thin shell over loop_forms.h, which checks its
// arguments, so eager and traced calls report the same errors.
#include "compiler/loop_forms.h"
#include "compiler/trace.h"
#include "stdlib/builtins.h"

namespace kiln {
namespace {

Value b_fori_loop(int, Value *argv) {
  install_graph_hooks();
  return fori_loop(argv[0], argv[1], argv[2]);
}
Value b_scan(int, Value *argv) {
  install_graph_hooks();
  return scan_loop(argv[0], argv[1], argv[2]);
}
Value b_while_loop(int, Value *argv) {
  install_graph_hooks();
  return while_loop(argv[0], argv[1], argv[2]);
}

BuiltinRegistrar loop_builtins_registrar([] {
  defbuiltin(
      "fori-loop", 3, 3, b_fori_loop,
      "(fori-loop N BODY INIT): INIT passed through (BODY i CARRY) for i = 0..N-1; traced, one loop node.");
  defbuiltin("scan", 3, 3, b_scan,
             "(scan F INIT XS): (FINAL-CARRY . YS); F maps (CARRY X) to (NEW-CARRY . Y) over XS's axis 0, "
             "YS the Ys stacked along a new axis 0.");
  defbuiltin("while-loop", 3, 3, b_while_loop,
             "(while-loop COND BODY INIT): CARRY <- (BODY CARRY) while (COND CARRY); not differentiable.");
});

}  // namespace
}  // namespace kiln

// graph_dot.cpp — one DOT node per graph node (label: index, op, attributes,
// shape), one edge per operand, and a double outline on the outputs.
//
// Invariant: see graph_dot.h.
#include "compiler/graph_dot.h"

#include <fmt/format.h>

#include "compiler/collective.h"
#include "compiler/loop.h"
#include "runtime/printer.h"

namespace kiln {

std::string graph_to_dot(const Graph &g) {
  std::string out = "digraph kiln {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  std::vector<int> output_of(size_t(g.size()), -1);
  for (size_t k = 0; k < g.outputs.size(); k++)
    if (output_of[size_t(g.outputs[k].node)] < 0) output_of[size_t(g.outputs[k].node)] = int(k);
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    std::string label = fmt::format("{}: {}", i, op_name(n.op));
    if (n.op == Op::Param) label += fmt::format(" {}", n.param_index);
    if (n.op == Op::Const)
      label += n.const_data ? std::string(" tensor") : fmt::format(" {}", format_double(n.scalar));
    // The row's attributes (runtime/op_table.h), in OpAttr's order; the shape is
    // on the label's second line, and an index's use only changes error text.
    if (op_has(n.op, kAttrAxis) || (op_has(n.op, kAttrWholeOrAxis) && n.axis >= 0))
      label += fmt::format(" axis {}", n.axis);
    if (op_has(n.op, kAttrKeepdims) && n.keepdims) label += " keepdims";
    if (op_has(n.op, kAttrRange) || op_has(n.op, kAttrAt)) label += fmt::format(" at {}", n.offset);
    if (op_has(n.op, kAttrRandomKind)) label += fmt::format(" {}", random_kind_name(RandomKind(n.axis)));
    if (op_has(n.op, kAttrReduce)) label += fmt::format(" {}", reduce_kind_name(ReduceKind(n.axis)));
    if (op_has(n.op, kAttrPerm)) {
      label += " perm";
      for (int d = 0; d < n.shape.rank; d++) label += fmt::format(" {}", n.perm[d]);
    }
    if (op_has(n.op, kAttrLoop)) label += fmt::format(" {} {}", loop_kind_name(n.loop->kind), n.loop->trips);
    label += "\\n" + shape_string(n.shape);
    if (output_of[size_t(i)] >= 0) label += fmt::format("\\noutput {}", output_of[size_t(i)]);
    out += fmt::format("  n{} [label=\"{}\"{}];\n", i, label,
                       output_of[size_t(i)] >= 0 ? ", peripheries=2" : "");
    for (int k = 0; k < op_arity(n.op); k++) out += fmt::format("  n{} -> n{};\n", n.in[k], i);
  }
  out += "}\n";
  return out;
}

}  // namespace kiln

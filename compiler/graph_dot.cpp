// graph_dot.cpp — one DOT node per graph node (label: index, op, attributes,
// shape), one edge per operand, and a double outline on the outputs.
//
// Invariant: see graph_dot.h.
#include "graph_dot.h"

#include <fmt/format.h>

#include "../runtime/printer.h"
#include "collective.h"

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
    if (n.op == Op::SumAxis || n.op == Op::MeanAxis || n.op == Op::MaxAxis || n.op == Op::Concat ||
        n.op == Op::Argmax || n.op == Op::Take || n.op == Op::ScatterAdd ||
        (n.op == Op::MaxMask && n.axis >= 0))
      label += fmt::format(" axis {}{}", n.axis, n.keepdims ? " keepdims" : "");
    if (n.op == Op::Slice || n.op == Op::Pad) label += fmt::format(" axis {} at {}", n.axis, n.offset);
    if (n.op == Op::Random) label += fmt::format(" {}", random_kind_name(RandomKind(n.axis)));
    if (n.op == Op::Allreduce) label += fmt::format(" {}", reduce_kind_name(ReduceKind(n.axis)));
    if (n.op == Op::Transpose) {
      label += " perm";
      for (int d = 0; d < n.shape.rank; d++) label += fmt::format(" {}", n.perm[d]);
    }
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

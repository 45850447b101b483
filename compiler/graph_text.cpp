// graph_text.cpp — the canonical text of a graph (see graph_text.h).
#include "graph_text.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <iterator>

namespace kiln {

std::string graph_canonical_text(const Graph &g) {
  // fmt rather than string operator+: GCC 12 warns falsely (-Wrestrict) on
  // `" " + std::to_string(...)`.
  std::string t = fmt::format("params {}\n", g.num_params);
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    fmt::format_to(std::back_inserter(t), "{} {} {} {}", i, op_name(n.op), shape_string(n.shape),
                   n.is_number ? "num" : "ten");
    for (int q = 0; q < op_arity(n.op); q++) fmt::format_to(std::back_inserter(t), " {}", n.in[q]);
    if (n.op == Op::Param) fmt::format_to(std::back_inserter(t), " p{}", n.param_index);
    if (n.op == Op::SumAxis || n.op == Op::MeanAxis || n.op == Op::MaxAxis || n.op == Op::MaxMask ||
        n.op == Op::Slice || n.op == Op::Pad || n.op == Op::Concat || n.op == Op::Argmax ||
        n.op == Op::Take || n.op == Op::ScatterAdd || n.op == Op::Random)
      fmt::format_to(std::back_inserter(t), " axis {}{}", int(n.axis), n.keepdims ? " keep" : "");
    if (n.op == Op::Slice || n.op == Op::Pad) fmt::format_to(std::back_inserter(t), " at {}", n.offset);
    if (n.op == Op::Allreduce)
      fmt::format_to(std::back_inserter(t), " kind {} sig {:016x}", int(n.axis), uint64_t(n.offset));
    if (n.op == Op::Transpose) {
      t += " perm";
      for (int d = 0; d < n.shape.rank; d++) fmt::format_to(std::back_inserter(t), " {}", int(n.perm[d]));
    }
    if (n.op == Op::Const) {
      if (n.const_data) {
        t += " tensor-arg";
      } else {
        uint64_t bits;
        std::memcpy(&bits, &n.scalar, 8);
        fmt::format_to(std::back_inserter(t), " {:016x}", bits);
      }
    }
    t += '\n';
  }
  t += "outputs";
  for (const GraphOutput &o : g.outputs)
    fmt::format_to(std::back_inserter(t), " {}{}", o.node, o.as_number ? 'n' : 't');
  t += '\n';
  return t;
}

}  // namespace kiln

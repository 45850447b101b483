// graph_text.cpp — the canonical text of a graph (see graph_text.h).
#include "compiler/graph_text.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <iterator>

#include "compiler/loop.h"

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
    // Every attribute the row names (runtime/op_table.h), in OpAttr's order.
    if (op_has(n.op, kAttrAxis) || op_has(n.op, kAttrWholeOrAxis))
      fmt::format_to(std::back_inserter(t), " axis {}", int(n.axis));
    if (op_has(n.op, kAttrKeepdims) && n.keepdims) t += " keep";
    if (op_has(n.op, kAttrRange) || op_has(n.op, kAttrAt))
      fmt::format_to(std::back_inserter(t), " at {}", n.offset);
    if (op_has(n.op, kAttrIndexUse)) fmt::format_to(std::back_inserter(t), " use {}", int(n.index_use));
    if (op_has(n.op, kAttrRandomKind)) fmt::format_to(std::back_inserter(t), " kind {}", int(n.axis));
    if (op_has(n.op, kAttrReduce))
      fmt::format_to(std::back_inserter(t), " kind {} sig {:016x}", int(n.axis), uint64_t(n.offset));
    if (op_has(n.op, kAttrPerm)) {
      t += " perm";
      for (int d = 0; d < n.shape.rank; d++) fmt::format_to(std::back_inserter(t), " {}", int(n.perm[d]));
    }
    if (op_has(n.op, kAttrLoop)) t += " {\n" + loop_canonical_text(*n.loop) + "}";
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

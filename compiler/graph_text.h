// graph_text.h — a graph's canonical text: the identity of the kernel compiled
// from it (the disk cache keys kernels by it, kernel_cache.h).
//
// Invariants:
//   * The text determines the generated code completely: two graphs with the
//     same text compile to the same C, so everything codegen reads from a node
//     is written here (op, attributes, operands, shape, number-or-tensor, a
//     scalar constant's bit pattern, a tensor constant's shape) plus the outputs.
//   * Tensor constants' data is not in it: kernels receive it at run time.
//   * A change to the format, or to what codegen makes of a text, must bump
//     kKernelAbi (kernel_cache.h) so stale cached kernels are not loaded.
#pragma once
#include <string>

#include "compiler/graph.h"

namespace kiln {

std::string graph_canonical_text(const Graph &g);

}  // namespace kiln

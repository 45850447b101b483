// window_graph.h — convolutions and pooling in a traced graph (SPEC §14), as a
// composite of ops that have gradient rules and JIT lowerings, so grad-of-grad,
// graph-eval and compiled kernels all work without an op of their own.
//
// Invariant: the composite computes each output element with the IEEE
// operations runtime/window.h lists for the eager loop, in the same order:
//   1. the input's H x W plane is flattened; with padding, one more entry (0.0,
//      or -inf for max-pool2d) is appended to every plane and stands for every
//      position in the padding;
//   2. one `take` with a constant index tensor gathers each window's entries;
//   3. conv: the weight, reshaped to O x (C*KH*KW), times the patches, shaped
//      N x (C*KH*KW) x (OH*OW), in a batched matmul: its k axis is (c, kh, kw),
//      so each sum runs c ascending, then kh, then kw, from 0.0;
//      pools: max-axis or mean-axis over the window axis (kh, kw row-major).
#pragma once
#include "compiler/graph.h"
#include "runtime/window.h"

namespace kiln {

// Records op `g.op` on node x (and, for a convolution, weight node w); returns
// the node of the result, of shape g.out.
int32_t record_window(Graph &graph, const Window &g, int32_t x, int32_t w);

}  // namespace kiln

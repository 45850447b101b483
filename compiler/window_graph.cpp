// window_graph.cpp — the traced composite of convolutions and pooling (window_graph.h).
#include "compiler/window_graph.h"

#include <cmath>

#include "runtime/object.h"
#include "runtime/tensor.h"

namespace kiln {

int32_t record_window(Graph &graph, const Window &g, int32_t x, int32_t w) {
  bool conv = window_is_conv(g.op);
  int64_t hw = g.h * g.w, kk = g.kh * g.kw, positions = g.oh * g.ow;
  int32_t planes = graph.reshape(x, Shape::of({g.n, g.c, hw}));
  if (g.padded()) {
    double pad = g.op == WindowOp::MaxPool2d ? -INFINITY : 0.0;
    int32_t slot = graph.broadcast_to(graph.constant(pad, false), Shape::of({g.n, g.c, 1}));
    planes = graph.concat(planes, slot, 2);
  }
  // Conv: (kh, kw) x (oh, ow), so patches come out as N x C x KK x OHOW, which is
  // N x (C*KK) x OHOW as it lies. Pools: (oh, ow) x (kh, kw), windows last.
  Tensor *idx = alloc_tensor(conv ? Shape::of({kk, positions}) : Shape::of({positions, kk}));
  for (int64_t y = 0; y < g.oh; y++)
    for (int64_t q = 0; q < g.ow; q++)
      for (int64_t ky = 0; ky < g.kh; ky++)
        for (int64_t kx = 0; kx < g.kw; kx++) {
          int64_t s = g.source(y, q, ky, kx), p = y * g.ow + q, k = ky * g.kw + kx;
          idx->data[conv ? k * positions + p : p * kk + k] = double(s >= 0 ? s : hw);
        }
  int32_t patches = graph.take(planes, graph.constant_tensor(from_ptr(idx)), 2);
  int32_t r;
  if (conv) {
    int64_t ckk = g.c * kk;
    int32_t cols = graph.reshape(patches, Shape::of({g.n, ckk, positions}));
    Shape wb = Shape::of({g.n, g.o, ckk});
    int32_t wm = graph.broadcast_to(graph.reshape(w, Shape::of({1, g.o, ckk})), wb);
    r = graph.matmul(window_op_name(g.op), wm, cols);
  } else {
    r = graph.reduce_axis(g.op == WindowOp::MaxPool2d ? Op::MaxAxis : Op::MeanAxis, patches, 3, false);
  }
  return graph.reshape(r, g.out);
}

}  // namespace kiln

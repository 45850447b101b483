// window.h — convolutions and pooling (SPEC §14): the argument and shape rules,
// shared by the eager builtins and the tracer, and the eager loops.
//
// Invariant: every op here reads its input through windows of KH x KW positions,
// and each output element is ONE fixed sequence of IEEE operations over its
// window, the same one the traced composite (compiler/window_graph.h) performs:
//   conv   out[n,o,oh,ow] = 0.0 + w[o,0,0,0]*x(..) + w[o,0,0,1]*x(..) + ...
//          (c ascending, then kh, then kw: the k order of a matmul whose k axis
//          is (c, kh, kw)); a position in the padding contributes w*0.0
//   avg    (0.0 + x(kh=0,kw=0) + x(0,1) + ...) / (KH*KW), padding counting 0.0
//   max    the window's first element, then each next one (row-major) replaces
//          it when greater or NaN (k_max_axis); padding is -inf
// where x(..) is the input at row oh*SH - PH + kh*DH, column ow*SW - PW + kw*DW.
// conv1d is conv2d on N x C x 1 x L. Threads split output planes only.
#pragma once
#include <string>

#include "runtime/tensor_ops.h"
#include "runtime/value.h"

namespace kiln {

enum class WindowOp : uint8_t { Conv2d, Conv1d, MaxPool2d, AvgPool2d };
const char *window_op_name(WindowOp op);  // its builtin's name
Composite window_builtin(WindowOp op);    // its builtin (runtime/op_table.h)
inline bool window_is_conv(WindowOp op) { return op == WindowOp::Conv2d || op == WindowOp::Conv1d; }

struct Window {
  WindowOp op;
  int64_t n, c, h, w;  // input N x C x H x W (conv1d: H = 1)
  int64_t o;           // output channels (pools: C)
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t oh, ow;
  Shape out;  // the result (conv1d: N x O x OW)

  bool padded() const { return ph > 0 || pw > 0; }
  // Where window position (kh, kw) of output (oh, ow) reads in an H x W plane,
  // or -1 in the padding.
  int64_t source(int64_t y, int64_t x, int64_t ky, int64_t kx) const {
    int64_t r = y * sh - ph + ky * dh, q = x * sw - pw + kx * dw;
    return r >= 0 && r < h && q >= 0 && q < w ? r * w + q : -1;
  }
};

// (conv2d X W [STRIDE [PADDING [DILATION]]]) and conv1d, for X and W of shapes
// xs and ws; `extra` holds the argc - 2 optional arguments. Raises the op's
// errors, each naming both shapes.
Window conv_window(WindowOp op, const Shape &xs, const Shape &ws, int argc, const Value *extra);
// (max-pool2d X K [STRIDE [PADDING]]) and avg-pool2d; `args` holds K onwards
// (argc - 1 of them).
Window pool_window(WindowOp op, const Shape &xs, int argc, const Value *args);

// The eager loops (the orders in the header comment).
void k_conv(const double *x, const double *w, double *out, const Window &g);
void k_pool(const double *x, double *out, const Window &g);

}  // namespace kiln

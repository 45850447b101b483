// window_builtins.cpp — conv2d, conv1d, max-pool2d, avg-pool2d (SPEC §14): the
// eager builtins. A symbolic argument hands the call to the tracer, which records
// the composite of compiler/window_graph.h; both follow runtime/window.h's orders.
#include "runtime/args.h"
#include "runtime/window.h"
#include "stdlib/builtins.h"
#include "stdlib/tensor_args.h"

namespace kiln {
namespace {

Value conv(WindowOp op, int argc, Value *argv) {
  const char *who = window_op_name(op);
  if (Value r = foreign_call(window_builtin(op), argc, argv); r != NOVALUE) return r;
  Tensor *x = arg_tensor(who, 1, argv[0]);
  Tensor *w = arg_tensor(who, 2, argv[1]);
  Window g = conv_window(op, x->shape, w->shape, argc, argv + 2);
  Tensor *out = alloc_tensor(g.out);
  k_conv(x->data, w->data, out->data, g);
  return from_ptr(out);
}

Value pool(WindowOp op, int argc, Value *argv) {
  const char *who = window_op_name(op);
  if (Value r = foreign_call(window_builtin(op), argc, argv); r != NOVALUE) return r;
  Tensor *x = arg_tensor(who, 1, argv[0]);
  Window g = pool_window(op, x->shape, argc, argv + 1);
  Tensor *out = alloc_tensor(g.out);
  k_pool(x->data, out->data, g);
  return from_ptr(out);
}

Value b_conv2d(int argc, Value *argv) { return conv(WindowOp::Conv2d, argc, argv); }
Value b_conv1d(int argc, Value *argv) { return conv(WindowOp::Conv1d, argc, argv); }
Value b_max_pool2d(int argc, Value *argv) { return pool(WindowOp::MaxPool2d, argc, argv); }
Value b_avg_pool2d(int argc, Value *argv) { return pool(WindowOp::AvgPool2d, argc, argv); }

BuiltinRegistrar window_builtins_registrar([] {
  defbuiltin(Composite::Conv2d, 2, 5, b_conv2d,
             "(conv2d X W [STRIDE [PADDING [DILATION]]]): 2-D convolution (cross-correlation) of X "
             "(N x C x H x W) with W (O x C x KH x KW), PyTorch's layout; each size an integer or a list "
             "(H W), defaults 1, 0 (zeros), 1. Each element sums c, then kh, then kw ascending from 0.0.");
  defbuiltin(Composite::Conv1d, 2, 5, b_conv1d,
             "(conv1d X W [STRIDE [PADDING [DILATION]]]): conv2d on X (N x C x L) and W (O x C x K).");
  defbuiltin(Composite::MaxPool2d, 2, 4, b_max_pool2d,
             "(max-pool2d X K [STRIDE [PADDING]]): the largest entry of each K window of X (N x C x H x "
             "W); STRIDE defaults to K, padding is -inf; the gradient goes to the first maximal entry.");
  defbuiltin(
      Composite::AvgPool2d, 2, 4, b_avg_pool2d,
      "(avg-pool2d X K [STRIDE [PADDING]]): the mean of each K window of X (N x C x H x W), summed "
      "row-major from 0.0 and divided once by its size (padding counts as 0.0); STRIDE defaults to K.");
});

}  // namespace
}  // namespace kiln

// tensor.h — Kiln's native tensor value (docs/tensors.md).
//
// Invariant: a Tensor is a header (shape, size, two pointers) and its data, a
// 64-byte-aligned run of `size` doubles; `base` is the start of the GC block
// holding the data, which is what keeps it alive. Below 64 KiB the header and
// the data are ONE pointer-free block (base == the tensor itself): its only
// pointers point into itself, so the collector need not scan it. Larger data
// is its own pointer-free block, allocated "ignore off page", under a scanned
// header. Tensors are immutable once a builtin has returned them, so several
// headers may share one data block (reshape does, and so do the outputs of one
// kernel call: alloc_tensor_group). Shapes have rank 0..kMaxRank
// and every dimension >= 1, so size >= 1.
#pragma once
#include <functional>
#include <string>

#include "runtime/object.h"
#include "runtime/tensor_ops.h"

namespace kiln {

struct Tensor {
  ObjHeader h;
  int64_t size;  // product of shape.dim
  Shape shape;
  double *data;  // 64-byte aligned, `size` doubles
  void *base;    // the GC block holding data (this tensor itself below 64 KiB)
};

inline bool is_tensor(Value v) { return has_type(v, T_TENSOR); }
// h.flags bit: the tensor's data is (or was) also read through another object, a
// view (tensor_view) or a graph constant, so it is never recycled when the tensor
// is donated to a kernel (docs/jit.md "Donation").
constexpr uint8_t kTensorDataShared = 1;
inline Tensor *tensor_of(Value v) { return as<Tensor>(v); }

// The element count of shape s, or the error "out of memory allocating a
// SHAPE tensor" when its bytes would not fit in a size_t: Shape::size() wraps,
// and a rank-8 broadcast of small tensors can pass 2^64 elements.
int64_t checked_tensor_size(const Shape &s);
// A new tensor whose data is uninitialised (fill it before it escapes).
Tensor *alloc_tensor(const Shape &s);
// n new tensors of shapes[0..n) (data uninitialised) whose data share ONE
// pointer-free block, each tensor's base: one allocation instead of n for a
// compiled kernel's outputs (a 32-layer MLP's gradients were 64 large
// allocations per call). The block lives while any of the tensors does.
void alloc_tensor_group(size_t n, const Shape *const *shapes, Tensor **out);
// Asks for transparent huge pages over the whole 2 MiB pages inside [p, p +
// bytes) when that is at least 4 MiB (large tensor data, kernel scratch): a
// fresh 8 MB tensor then faults in 4 pages instead of 2048, and each fault
// costs a trap to the kernel (docs/performance.md, "Memory at scale").
void advise_huge_pages(void *p, size_t bytes);
Value make_tensor(const Shape &s);
Value make_tensor_filled(const Shape &s, double x);
// Calls fill(lo, hi) over [0, n) in chunks, polling for Ctrl-C between them:
// writing a tensor of 2^31 elements takes tens of seconds (its pages fault in),
// and a constructor must not hold Ctrl-C off for that long.
void fill_in_chunks(int64_t n, const std::function<void(int64_t, int64_t)> &fill);
Value make_scalar_tensor(double x);
// A tensor of shape `s` sharing t's data (s.size() == t->size).
Value tensor_view(Tensor *t, const Shape &s);

// Prints `#<tensor 2x3 [1.0 2.0 ...]>` (docs/language.md).
void print_tensor(std::string &out, Value v);
// Same shape and the same bit pattern in every element.
bool tensor_equal(Value a, Value b);

// Registers the printer/equal?/name hooks (idempotent; called by the tensor
// builtins' registrar and by unit tests).
void register_tensor_type();

}  // namespace kiln

// tensor.cpp — allocation, printing and equality of tensors (see tensor.h).
#include "runtime/tensor.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "runtime/args.h"
#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/printer.h"

namespace kiln {

constexpr size_t kAlign = 64;
// Blocks at least this large are allocated "ignore off page": the collector
// then only honours pointers near the block's start (our `base`), so stray
// integers that happen to point into the middle of a big buffer cannot pin it
// or blacklist pages — the cause of heap growth in long training loops.
constexpr size_t kLargeBlock = 64 * 1024;

static double *aligned_data(void *from) {
  uintptr_t p = (reinterpret_cast<uintptr_t>(from) + kAlign - 1) & ~uintptr_t(kAlign - 1);
  return reinterpret_cast<double *>(p);
}

void advise_huge_pages(void *p, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  if (bytes < 2 * kHuge) return;
  uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  // Advice only: where the kernel has no transparent huge pages (or the range
  // is not plain anonymous memory) madvise fails and nothing changes.
  if (hi > lo) (void)madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_HUGEPAGE);
}

int64_t checked_tensor_size(const Shape &s) {
  // Room for the header and the alignment slack too, so that the byte count
  // alloc_tensor computes from it cannot wrap either.
  constexpr int64_t kMaxElements = int64_t(1) << 59;
  int64_t size = 1;
  for (int i = 0; i < s.rank; i++)
    if (s.dim[i] < 0 || __builtin_mul_overflow(size, s.dim[i], &size) || size > kMaxElements) [[unlikely]]
      throw_errorf("out of memory allocating a {} tensor", shape_string(s));
  return size;
}

Tensor *alloc_tensor(const Shape &s) {
  int64_t size = checked_tensor_size(s);
  size_t bytes = size_t(size) * sizeof(double) + kAlign;
  if (sizeof(Tensor) + bytes < kLargeBlock) {
    // Header and data in ONE pointer-free block: `data` and `base` point into
    // the block itself, so nothing in it needs scanning, and a small tensor
    // costs one allocation instead of two (allocation is most of a small op).
    void *block = gc_alloc_atomic(sizeof(Tensor) + bytes);  // raises when refused
    Tensor *t = static_cast<Tensor *>(block);
    t->h = ObjHeader{T_TENSOR, 0, 0, 0};
    t->size = size;
    t->shape = s;
    t->base = block;
    t->data = aligned_data(t + 1);
    return t;
  }
  Tensor *t = alloc_obj<Tensor>(T_TENSOR);
  t->shape = s;
  t->size = size;
  // (gc_init sizes the heap so large tensors do not collect every few steps.)
  if (g_gc_stress_every) gc_stress_tick();
  t->base = GC_MALLOC_ATOMIC_IGNORE_OFF_PAGE(bytes);
  if (!t->base) throw_errorf("out of memory allocating a {} tensor", shape_string(s));
  advise_huge_pages(t->base, bytes);
  t->data = aligned_data(t->base);
  return t;
}

void alloc_tensor_group(size_t n, const Shape *const *shapes, Tensor **out) {
  auto padded = [](int64_t size) { return (size_t(size) * sizeof(double) + kAlign - 1) / kAlign * kAlign; };
  size_t bytes = kAlign;  // slack to align the first tensor
  for (size_t i = 0; i < n; i++)
    if (__builtin_add_overflow(bytes, padded(checked_tensor_size(*shapes[i])), &bytes)) [[unlikely]]
      throw_errorf("out of memory allocating {} tensors", n);
  if (g_gc_stress_every) gc_stress_tick();
  // `block` stays in this frame while the headers are allocated.
  void *block = gc_checked(GC_MALLOC_ATOMIC_IGNORE_OFF_PAGE(bytes), bytes);
  advise_huge_pages(block, bytes);
  char *next = reinterpret_cast<char *>(aligned_data(block));
  for (size_t i = 0; i < n; i++) {
    Tensor *t = alloc_obj<Tensor>(T_TENSOR);
    t->shape = *shapes[i];
    t->size = shapes[i]->size();
    t->base = block;
    t->data = reinterpret_cast<double *>(next);
    next += padded(t->size);
    out[i] = t;
  }
}

Value make_tensor(const Shape &s) { return from_ptr(alloc_tensor(s)); }

Value make_tensor_filled(const Shape &s, double x) {
  Tensor *t = alloc_tensor(s);
  double *d = t->data;
  fill_in_chunks(t->size, [d, x](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) d[i] = x;
  });
  return from_ptr(t);
}

void fill_in_chunks(int64_t n, const std::function<void(int64_t, int64_t)> &fill) {
  fill_in_polled_chunks(n, int64_t(1) << 20, fill);
}

Value make_scalar_tensor(double x) { return make_tensor_filled(Shape{}, x); }

Value tensor_view(Tensor *t, const Shape &s) {
  Tensor *v = alloc_obj<Tensor>(T_TENSOR);
  v->shape = s;
  v->size = t->size;
  v->data = t->data;
  v->base = t->base;
  t->h.flags |= kTensorDataShared;
  v->h.flags |= kTensorDataShared;
  return from_ptr(v);
}

void print_tensor(std::string &out, Value v) {
  Tensor *t = tensor_of(v);
  out += "#<tensor ";
  out += shape_string(t->shape);
  out += " [";
  auto element = [&](int64_t i) { format_double(out, t->data[i]); };
  if (t->size <= 8) {
    for (int64_t i = 0; i < t->size; i++) {
      if (i) out += ' ';
      element(i);
    }
  } else {
    for (int64_t i = 0; i < 6; i++) {
      element(i);
      out += ' ';
    }
    out += "... ";
    element(t->size - 1);
  }
  out += "]>";
}

bool tensor_equal(Value a, Value b) {
  Tensor *x = tensor_of(a), *y = tensor_of(b);
  if (!(x->shape == y->shape)) return false;
  return std::memcmp(x->data, y->data, size_t(x->size) * sizeof(double)) == 0;
}

void register_tensor_type() {
  TypeHooks &h = g_type_hooks[T_TENSOR];
  h.name = "tensor";
  h.print = [](std::string &out, Value v, bool) { print_tensor(out, v); };
  h.equal = tensor_equal;
}

}  // namespace kiln

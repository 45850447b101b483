// same_bits.h — "the same bits" for the unit tests that hold eager, interpreted
// and compiled paths to one result: doubles, runs of doubles, vectors and Kiln
// values (a number or a tensor).
//
// Invariant: two doubles are the same when their 8 bytes are, so 0.0 and -0.0
// differ and a NaN matches only a NaN of the same sign and payload — except
// under Nans::AnyPayload, where any NaN matches any NaN. A run that differs
// names its first differing element (value and bits) with UNSCOPED_INFO, so a
// failing CHECK says where.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/object.h"
#include "runtime/tensor.h"

namespace kiln::test {

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Which NaNs match. AnyPayload is for inputs holding NaNs: which operand's NaN an
// addition of two NaNs returns (so the sign of inf - inf's NaN against a NaN
// input) is the C compiler's choice of operand order, on every path alike
// (k_matmul too), so only "a NaN" is fixed.
enum class Nans { Exact, AnyPayload };

inline bool same_bits(const double *a, const double *b, int64_t n, Nans nans = Nans::Exact) {
  for (int64_t i = 0; i < n; i++) {
    if (same_bits(a[i], b[i]) || (nans == Nans::AnyPayload && a[i] != a[i] && b[i] != b[i])) continue;
    uint64_t x, y;
    std::memcpy(&x, a + i, sizeof x);
    std::memcpy(&y, b + i, sizeof y);
    UNSCOPED_INFO("first difference at element " << i << ": " << a[i] << " (" << std::hex << x << ") vs "
                                                 << b[i] << " (" << y << std::dec << ")");
    return false;
  }
  return true;
}

inline bool same_bits(const std::vector<double> &a, const std::vector<double> &b) {
  return a.size() == b.size() && same_bits(a.data(), b.data(), int64_t(a.size()));
}

// Numbers compare as doubles; tensors by shape and then element by element.
inline bool same_bits(Value a, Value b) {
  if (is_tensor(a) != is_tensor(b)) return false;
  if (!is_tensor(a)) return same_bits(number_as_double(a), number_as_double(b));
  Tensor *ta = tensor_of(a), *tb = tensor_of(b);
  return ta->shape == tb->shape && same_bits(ta->data, tb->data, ta->size);
}

}  // namespace kiln::test

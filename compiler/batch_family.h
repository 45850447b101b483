// batch_family.h — kernels for a family of leading (batch) sizes (SPEC §17,
// docs/jit.md "Batch families"): which extents of a graph are the run-time
// leading size n, found by comparing two traces of the same function. Plain
// data over Graphs; nothing here knows libgccjit.
//
// Invariants:
//   * A family is found from graphs traced at two leading sizes N > N2 and is
//     planned and compiled at N (the largest member: every buffer fits). Its
//     kernel reads n (1 <= n <= N) at run time; a node marked batched has the
//     length n on its batch axis, every other extent is the constant it had at N.
//   * A graph traced at n joins a family only when it equals the family's graph
//     with every batched extent n and every size-derived constant (a scalar
//     Const of value per_row * n, as a mean's gradient divides by) recomputed
//     for n: so the family's kernel computes exactly what a kernel compiled for
//     that graph would, and the lowerings (which perform, per element, the same
//     operations whatever n is) keep every bit.
//   * A family is only planned when family_lowerable accepts every batched
//     node; anything else compiles for its exact shapes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph.h"
#include "compiler/kernel_plan.h"

namespace kiln {

struct BatchFamily {
  int64_t rows = 0;          // N, the size the family is planned at; 0: no family
  std::vector<int8_t> axis;  // per node: -1 fixed, else the axis of length n
  // Per node: a size-derived scalar Const has the value scale * n, or (where
  // numer is not 0) numer / (scale * n), as folding a mean's gradient computes
  // it; else scale is 0.
  std::vector<int64_t> scale;
  std::vector<double> numer;
  bool batched(int32_t node) const { return rows > 0 && axis[size_t(node)] >= 0; }
  // A size-derived constant's value for leading size n.
  double value_at(int32_t node, int64_t n) const {
    double count = double(scale[size_t(node)] * n);
    return numer[size_t(node)] != 0.0 ? numer[size_t(node)] / count : count;
  }
};

// Compares `a` (traced at leading size `rows_a`) with `b` (at `rows_b` <
// rows_a): same nodes, operands and attributes, and shapes equal but for at
// most one axis per node of length rows_a in a and rows_b in b; scalar
// constants equal in bits or size-derived (rows_a * k and rows_b * k, k an
// integer, or c / (k * rows_a) and c / (k * rows_b) with k the per-row size
// of a batched node). Fills `out` (planned at rows_a) and returns true when they form a
// family with at least one batched parameter.
bool find_batch_family(const Graph &a, int64_t rows_a, const Graph &b, int64_t rows_b, BatchFamily &out);

// Whether `g` (traced at leading size n) is the family's graph `fg` with every
// batched extent n and every size-derived constant recomputed for n.
bool in_batch_family(const Graph &fg, const BatchFamily &f, const Graph &g, int64_t n);

// Whether the lowerings can take n at run time for every node the family
// batches (element-wise ops, selects, broadcasts, whole and axis reductions,
// sum-to, rank-2 matmuls with the batch in rows or in the inner length, take
// of a fixed table's rows at n indices (one-hot) and its scatter-add, argmax
// along a later axis, reshape keeping the leading axis, and a matmul's
// transposed operand read in place). Otherwise `why` names the first node that
// cannot.
bool family_lowerable(const Graph &g, const KernelLayout &L, const BatchFamily &f, std::string *why);

// The family's part of a kernel's cache key (empty for no family).
std::string batch_family_key(const BatchFamily &f);

// KILN_JIT_FAMILIES=off: every kernel is compiled for its exact shapes.
bool batch_families_enabled();

}  // namespace kiln

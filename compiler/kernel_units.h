// kernel_units.h — a kernel's steps (kernel_schedule.h) grouped into units of
// emission, and the signature that decides which units share one generated
// function. A unit is a fused element-wise run, a serial sum with its pair or
// host transpose, or one node. A deep model repeats the same units layer after
// layer (the same ops on the same shapes, on other buffers); emit_kernel emits
// each signature that occurs more than once as ONE internal function and calls
// it once per unit, so GCC's work grows with the distinct units, not with the
// graph (docs/performance.md, "Compile time").
//
// Invariants:
//   * A signature names every input of a unit's lowering except the buffers:
//     the kind of unit, each node's op, shape and attributes (axis, keepdims,
//     offset, perm), each operand's shape, whether the operand is a node of the
//     unit or which of its slots it is, scalar literals by their bits, operands
//     read in place transposed (with their row length), which run values are
//     stored, and a host transpose's shapes. So two units with one signature
//     emit the same code once their slots are parameters.
//   * `slots` lists the nodes whose buffers the unit reads or writes, each once,
//     in order of first use; the signature refers to slots by that position.
//   * Units cover the steps in order: emitting the units in order emits the
//     steps in order. Parameters, constants and transposes read in place have
//     no unit (they compute nothing).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph.h"
#include "compiler/kernel_schedule.h"

namespace kiln {

struct KernelUnit {
  enum class Kind : uint8_t { Run, Sums, Node };
  Kind kind = Kind::Node;
  std::vector<int32_t> nodes;  // Run: the run in order; Sums: 1 or 2 sums; Node: the node
  int32_t host = -1;           // Sums: the transpose whose loop carries them, or -1
  // Run: per node, whether its value goes to its buffer (an output, or read by
  // a node outside the run); the others live only in the loop.
  std::vector<bool> stored;
  // Elements the unit touches (a matmul counts m*k*n): below kMinSharedWork a
  // call would cost more than the loop it replaces.
  int64_t work = 0;
  std::vector<int32_t> slots;
  std::string signature;
};

// `read_in_place[i]`: node i is a transpose its matmuls read in place (no
// buffer of its own; its operand's buffer, transposed).
std::vector<KernelUnit> kernel_units(const Graph &g, const std::vector<EmitStep> &steps,
                                     const std::vector<bool> &read_in_place);

constexpr int64_t kMinSharedWork = 64;

// Per unit: whether emit_kernel emits it as a call to a shared function, that
// is, whether its signature occurs at least twice and its work is at least
// kMinSharedWork. KILN_JIT_SHARE=0 turns
// sharing off (every unit inline, as a one-function kernel), for A/B figures;
// KILN_JIT_SHARE=all shares every recurring unit whatever its size, for tests.
std::vector<bool> shared_units(const std::vector<KernelUnit> &units);

}  // namespace kiln

// kernel_units.cpp — steps grouped into units and their signatures (see
// kernel_units.h).
#include "compiler/kernel_units.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "compiler/jit_context.h"
#include "runtime/eval.h"

namespace kiln {

namespace {

// Writes one unit's signature, assigning slots as operands are first met.
class SignatureWriter {
 public:
  SignatureWriter(const Graph &g, const std::vector<bool> &read_in_place, KernelUnit &u)
      : g_(g), read_in_place_(read_in_place), u_(u) {}

  void shape(const Shape &s) {
    out_ += '[';
    for (int d = 0; d < s.rank; d++) fmt::format_to(std::back_inserter(out_), "{}{}", d ? "," : "", s.dim[d]);
    out_ += ']';
  }

  // A node the unit computes: op and attributes, then its operands.
  void node(int32_t i) {
    const GraphNode &n = g_[i];
    fmt::format_to(std::back_inserter(out_), "({} ", int(n.op));
    shape(n.shape);
    fmt::format_to(std::back_inserter(out_), " a{} k{} o{}", int(n.axis), int(n.keepdims), n.offset);
    if (n.op == Op::Transpose) {
      out_ += " p";
      for (int d = 0; d < n.shape.rank; d++) fmt::format_to(std::back_inserter(out_), "{}", int(n.perm[d]));
    }
    for (int q = 0; q < op_arity(n.op); q++) operand(n.in[q]);
    out_ += ')';
  }

  // An operand: one of the unit's nodes, a scalar literal, or a slot.
  void operand(int32_t a) {
    out_ += ' ';
    for (size_t k = 0; k < u_.nodes.size(); k++)
      if (u_.nodes[k] == a && u_.kind == KernelUnit::Kind::Run) {
        fmt::format_to(std::back_inserter(out_), "n{}", k);
        return;
      }
    shape(g_[a].shape);
    const GraphNode &n = g_[a];
    if (n.op == Op::Const && !n.const_data) {
      uint64_t bits;
      std::memcpy(&bits, &n.scalar, sizeof bits);
      fmt::format_to(std::back_inserter(out_), "k{:x}", bits);
      return;
    }
    if (read_in_place_[size_t(a)]) fmt::format_to(std::back_inserter(out_), "t{}", n.shape.dim[0]);
    fmt::format_to(std::back_inserter(out_), "s{}", slot(a));
  }

  // The buffer a node of the unit writes.
  void result(int32_t i) { fmt::format_to(std::back_inserter(out_), " ->s{}", slot(i)); }

  void text(const char *s) { out_ += s; }
  std::string take() { return std::move(out_); }

 private:
  size_t slot(int32_t a) {
    for (size_t k = 0; k < u_.slots.size(); k++)
      if (u_.slots[k] == a) return k;
    u_.slots.push_back(a);
    return u_.slots.size() - 1;
  }

  const Graph &g_;
  const std::vector<bool> &read_in_place_;
  KernelUnit &u_;
  std::string out_;
};

int64_t unit_work(const Graph &g, int32_t i) {
  const GraphNode &n = g[i];
  if (n.op == Op::Matmul) return g[n.in[0]].size() * n.shape.dim[n.shape.rank - 1];
  int64_t w = n.size();
  for (int q = 0; q < op_arity(n.op); q++) w += g[n.in[q]].size();
  return w;
}

}  // namespace

std::vector<KernelUnit> kernel_units(const Graph &g, const std::vector<EmitStep> &steps,
                                     const std::vector<bool> &read_in_place) {
  std::vector<bool> is_output(size_t(g.size()), false);
  for (const GraphOutput &o : g.outputs) is_output[size_t(o.node)] = true;
  // Who reads each node: a run value is stored when a node outside the run (or
  // an output) reads it.
  std::vector<std::vector<int32_t>> readers(size_t(g.size()));
  for (int32_t i = 0; i < g.size(); i++)
    for (int q = 0; q < op_arity(g[i].op); q++) readers[size_t(g[i].in[q])].push_back(i);

  std::vector<KernelUnit> units;
  for (size_t p = 0; p < steps.size(); p++) {
    if ((p & 1023) == 0) check_interrupt_unless_background();
    const EmitStep &step = steps[p];
    KernelUnit u;
    SignatureWriter w(g, read_in_place, u);
    if (step.fuse_next) {
      u.kind = KernelUnit::Kind::Run;
      u.nodes.push_back(step.node);
      while (steps[p].fuse_next) u.nodes.push_back(steps[++p].node);
      w.text("run");
      for (int32_t r : u.nodes) {
        w.node(r);
        bool stored = is_output[size_t(r)];
        for (int32_t reader : readers[size_t(r)]) {
          bool inside = false;
          for (int32_t x : u.nodes) inside = inside || x == reader;
          stored = stored || !inside;
        }
        u.stored.push_back(stored);
        if (stored) w.result(r);
      }
    } else if (step.paired >= 0 || step.host >= 0) {
      u.kind = KernelUnit::Kind::Sums;
      u.nodes.push_back(step.node);
      if (step.paired >= 0) u.nodes.push_back(step.paired);
      u.host = step.host;
      w.text("sums");
      for (int32_t s : u.nodes) {
        w.node(s);
        w.result(s);
      }
      if (u.host >= 0) {
        w.text(" host");
        w.node(u.host);
        w.result(u.host);
      }
    } else {
      const GraphNode &n = g[step.node];
      if (n.op == Op::Param || n.op == Op::Const || read_in_place[size_t(step.node)]) continue;
      u.kind = KernelUnit::Kind::Node;
      u.nodes.push_back(step.node);
      w.text("node");
      w.node(step.node);
      w.result(step.node);
      // Never shared: a loop's code reads the kernel's scratch and arguments,
      // which a shared function is not given, and its body is no attribute.
      if (n.op == Op::Loop) w.text(fmt::format(" loop{}", step.node).c_str());
    }
    for (int32_t i : u.nodes) u.work += unit_work(g, i);
    if (u.host >= 0) u.work += unit_work(g, u.host);
    u.signature = w.take();
    units.push_back(std::move(u));
  }
  return units;
}

std::vector<bool> shared_units(const std::vector<KernelUnit> &units) {
  // 0: off; 1 (default): recurring units of kMinSharedWork or more; all: every
  // recurring unit (the differential fuzzer's small graphs then use calls too).
  static const int mode = [] {
    const char *s = std::getenv("KILN_JIT_SHARE");
    if (s && std::strcmp(s, "0") == 0) return 0;
    if (s && std::strcmp(s, "all") == 0) return 2;
    return 1;
  }();
  std::vector<bool> shared(units.size(), false);
  if (mode == 0) return shared;
  int64_t min_work = mode == 2 ? 0 : kMinSharedWork;
  std::unordered_map<std::string, int> count;
  for (const KernelUnit &u : units) count[u.signature]++;
  for (size_t k = 0; k < units.size(); k++)
    shared[k] = count[units[k].signature] >= 2 && units[k].work >= min_work;
  return shared;
}

}  // namespace kiln

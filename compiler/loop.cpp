// loop.cpp — running and differentiating Loop nodes (loop.h).
//
// Invariant: a step computes every body node with eval_node, as graph_eval does,
// so a loop's result is the bits of the eager loop calling the same ops.
#include "compiler/loop.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <iterator>

#include "compiler/autodiff.h"
#include "compiler/graph_eval.h"
#include "compiler/graph_text.h"
#include "compiler/optimise.h"
#include "runtime/error.h"
#include "runtime/random_keys.h"

namespace kiln {

const char *loop_kind_name(LoopKind k) {
  switch (k) {
  case LoopKind::Fori: return "fori-loop";
  case LoopKind::Scan: return "scan";
  case LoopKind::While: return "while-loop";
  }
  return "loop";
}

namespace {
int64_t total(const std::vector<LeafSpec> &leaves) {
  int64_t s = 0;
  for (const LeafSpec &l : leaves) s += l.shape.size();
  return s;
}
}  // namespace

int64_t LoopBody::carry_size() const { return total(carry); }
int64_t LoopBody::capture_size() const { return total(captures); }
int64_t LoopBody::xs_size() const { return total(xs) * (trips > 0 ? trips : 0); }
int64_t LoopBody::ys_size() const { return total(ys) * (trips > 0 ? trips : 0); }
int64_t LoopBody::result_size() const {
  return carry_size() + ys_size() + (save_carries ? carry_size() * trips : 0);
}

namespace {

// What failed inside a body, kept until the outermost caller has its buffers back.
struct LoopFault {
  bool random = false;
  RandomKind kind = RandomKind::Uniform;
  double key = 0.0;
  IndexFault index{};
};
thread_local LoopFault g_fault;

// Large step buffers kept for the next loop run on this thread: a large buffer
// freed and allocated again is mapped afresh, and every page of it faults again
// on each call (per-example gradients through a vmapped scan spent a quarter of
// their time there). Small ones come from malloc, which reuses them by itself.
// At most kPoolBytes are kept; a buffer is reused for a request of its exact size.
class StepBufferPool {
 public:
  ~StepBufferPool() {
    for (const Entry &e : free_) std::free(e.p);
  }
  double *take(size_t bytes) {
    if (bytes >= kLarge)
      for (size_t k = free_.size(); k-- > 0;)
        if (free_[k].bytes == bytes) {
          double *p = free_[k].p;
          held_ -= bytes;
          free_.erase(free_.begin() + std::ptrdiff_t(k));
          return p;
        }
    auto *p = static_cast<double *>(std::aligned_alloc(64, bytes));
    if (!p) throw std::bad_alloc();
    return p;
  }
  void give(double *p, size_t bytes) {
    if (!p) return;
    if (bytes < kLarge) {
      std::free(p);
      return;
    }
    while (!free_.empty() && held_ + bytes > kPoolBytes) {  // the oldest go first
      held_ -= free_.front().bytes;
      std::free(free_.front().p);
      free_.erase(free_.begin());
    }
    if (bytes > kPoolBytes) {
      std::free(p);
      return;
    }
    free_.push_back({p, bytes});
    held_ += bytes;
  }

 private:
  static constexpr size_t kPoolBytes = size_t(64) << 20, kLarge = size_t(64) << 10;
  struct Entry {
    double *p;
    size_t bytes;
  };
  std::vector<Entry> free_;
  size_t held_ = 0;
};
thread_local StepBufferPool g_pool;

size_t rounded_bytes(int64_t doubles) {
  return (size_t(doubles > 0 ? doubles : 1) * sizeof(double) + 63) / 64 * 64;
}

// One body graph, evaluated step after step: every node keeps its own buffer
// for the whole loop (no recycling inside a step), allocated once.
class StepRunner {
 public:
  explicit StepRunner(const Graph &g)
      : g_(g), val_(size_t(g.size()), nullptr), own_(size_t(g.size()), nullptr) {
    for (int32_t i = 0; i < g.size(); i++) {
      const GraphNode &n = g[i];
      if (n.op == Op::Param || n.op == Op::Const) continue;
      if (n.op == Op::Reshape) continue;  // aliases its operand
      own_[size_t(i)] = g_pool.take(rounded_bytes(n.size()));
    }
  }
  ~StepRunner() {
    for (int32_t i = 0; i < g_.size(); i++) g_pool.give(own_[size_t(i)], rounded_bytes(g_[i].size()));
  }
  StepRunner(const StepRunner &) = delete;
  StepRunner &operator=(const StepRunner &) = delete;

  // params[k]: param k's elements; outputs are copied to outs[k].
  bool run(const double *const *params, double *const *outs) {
    const double *in[3];
    for (int32_t i = 0; i < g_.size(); i++) {
      const GraphNode &n = g_[i];
      if (n.op == Op::Param) {
        val_[size_t(i)] = params[n.param_index];
        continue;
      }
      if (n.op == Op::Const) {
        val_[size_t(i)] = n.const_data ? n.const_data : &n.scalar;
        continue;
      }
      if (n.op == Op::Reshape) {
        val_[size_t(i)] = val_[size_t(n.in[0])];
        continue;
      }
      for (int k = 0; k < op_arity(n.op); k++) in[k] = val_[size_t(n.in[k])];
      double *out = own_[size_t(i)];
      if (!eval_node(g_, n, in, out)) {
        if (n.op == Op::Random) {
          g_fault = LoopFault{true, RandomKind(n.axis), in[0][0], {}};
        } else if (n.op != Op::Loop) {
          g_fault = LoopFault{false, RandomKind::Uniform, 0.0, index_fault(g_, n, in[1])};
        }
        return false;
      }
      val_[size_t(i)] = out;
    }
    for (size_t k = 0; k < g_.outputs.size(); k++) {
      int32_t o = g_.outputs[k].node;
      std::memcpy(outs[k], val_[size_t(o)], size_t(g_[o].size()) * sizeof(double));
    }
    return true;
  }

 private:
  const Graph &g_;
  std::vector<const double *> val_;
  std::vector<double *> own_;
};

struct Buffer {
  explicit Buffer(int64_t n) : bytes(rounded_bytes(n)), p(g_pool.take(bytes)) {}
  ~Buffer() { g_pool.give(p, bytes); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  size_t bytes;
  double *p;
};

}  // namespace

[[noreturn]] void raise_loop_fault() {
  LoopFault f = g_fault;
  if (f.random) random_key_error(f.kind, f.key);
  take_index_error(f.index.use, f.index.index, f.index.axis, f.index.len);
}

bool run_loop(const LoopBody &L, const double *carry_in, const double *consts, double *out) {
  const size_t nc = L.carry.size(), nx = L.xs.size(), ny = L.ys.size(), ncap = L.captures.size();
  const int64_t C = L.carry_size();
  Buffer a(C), b(C);
  std::memcpy(a.p, carry_in, size_t(C) * sizeof(double));
  double *cur = a.p, *next = b.p;
  StepRunner body(*L.body);
  std::unique_ptr<StepRunner> cond;
  if (L.cond) cond = std::make_unique<StepRunner>(*L.cond);

  std::vector<const double *> params(1 + nc + nx + ncap);
  std::vector<double *> outs(nc + ny);
  double index = 0.0;
  params[0] = &index;
  // Offsets of the leaves inside their packed buffers.
  std::vector<int64_t> carry_at(nc), x_at(nx), y_at(ny), save_at(nc);
  int64_t at = 0;
  for (size_t k = 0; k < nc; k++, at += L.carry[k - 1].shape.size()) carry_at[k] = at;
  at = 0;
  for (size_t k = 0; k < ncap; k++) {
    params[1 + nc + nx + k] = consts + at;
    at += L.captures[k].shape.size();
  }
  for (size_t k = 0; k < nx; k++) {
    x_at[k] = at;
    at += L.xs[k].shape.size() * L.trips;
  }
  at = C;
  for (size_t k = 0; k < ny; k++) {
    y_at[k] = at;
    at += L.ys[k].shape.size() * L.trips;
  }
  for (size_t k = 0; k < nc; k++) {
    save_at[k] = at;
    at += L.carry[k].shape.size() * L.trips;
  }

  int64_t steps = L.kind == LoopKind::While ? INT64_MAX : L.trips;
  for (int64_t s = 0; s < steps; s++) {
    int64_t t = L.reverse ? L.trips - 1 - s : s;
    index = double(t);
    for (size_t k = 0; k < nc; k++) params[1 + k] = cur + carry_at[k];
    if (cond) {
      double go;
      double *go_out = &go;
      if (!cond->run(params.data(), &go_out)) return false;
      if (go == 0.0) break;
    }
    for (size_t k = 0; k < nx; k++) {
      int64_t size = L.xs[k].shape.size();
      params[1 + nc + k] = consts + x_at[k] + t * size;
    }
    for (size_t k = 0; k < nc; k++) outs[k] = next + carry_at[k];
    for (size_t k = 0; k < ny; k++) outs[nc + k] = out + y_at[k] + t * L.ys[k].shape.size();
    if (L.save_carries)
      for (size_t k = 0; k < nc; k++) {
        int64_t size = L.carry[k].shape.size();
        std::memcpy(out + save_at[k] + t * size, cur + carry_at[k], size_t(size) * sizeof(double));
      }
    if (!body.run(params.data(), outs.data())) return false;
    std::swap(cur, next);
  }
  std::memcpy(out, cur, size_t(C) * sizeof(double));
  return true;
}

std::string loop_canonical_text(const LoopBody &L) {
  std::string t = fmt::format("loop {} trips {} reverse {} save {}\n", loop_kind_name(L.kind), L.trips,
                              int(L.reverse), int(L.save_carries));
  for (const auto *leaves : {&L.carry, &L.xs, &L.ys, &L.captures}) {
    t += "leaves";
    for (const LeafSpec &l : *leaves)
      fmt::format_to(std::back_inserter(t), " {}{}", shape_string(l.shape), l.is_number ? "n" : "t");
    t += '\n';
  }
  t += "body {\n" + graph_canonical_text(*L.body) + "}\n";
  if (L.cond) t += "cond {\n" + graph_canonical_text(*L.cond) + "}\n";
  return t;
}

// ---- the gradient -----------------------------------------------------------------

namespace {

// `len` entries of the flat node `x` from `start`, or -1 when len is 0.
int32_t piece(Graph &g, int32_t x, int64_t start, int64_t len) {
  if (len == 0) return -1;
  return g.slice(x, 0, start, len);
}

// The pieces joined in order (a placeholder 0.0 when there are none).
int32_t join(Graph &g, const std::vector<int32_t> &pieces) {
  int32_t acc = -1;
  for (int32_t p : pieces) {
    if (p < 0) continue;
    acc = acc < 0 ? p : g.concat(acc, p, 0);
  }
  return acc < 0 ? g.constant(0.0, true) : acc;
}

// The backward body: params (step, g_carry..., g_captures_acc..., saved
// carry..., x..., g_y..., [g_saved...,] captures...), outputs (d carry..., g_captures_acc +
// d captures..., d x...).
std::shared_ptr<Graph> backward_body(const LoopBody &L) {
  const size_t nc = L.carry.size(), nx = L.xs.size(), ny = L.ys.size(), ncap = L.captures.size();
  Graph b;
  int p = 0;
  auto param = [&](const LeafSpec &s) { return b.param(p++, ArgSpec{s.shape, s.is_number}); };
  int32_t step = b.param(p++, ArgSpec{Shape{}, true});
  std::vector<int32_t> g_carry, g_acc, saved, xs, g_y, g_saved, caps;
  for (const LeafSpec &s : L.carry) g_carry.push_back(param(s));
  for (const LeafSpec &s : L.captures) g_acc.push_back(param(s));
  for (const LeafSpec &s : L.carry) saved.push_back(param(s));
  for (const LeafSpec &s : L.xs) xs.push_back(param(s));
  for (const LeafSpec &s : L.ys) g_y.push_back(param(s));
  if (L.save_carries)  // the saved carries are outputs too: their adjoints join the carry's
    for (const LeafSpec &s : L.carry) g_saved.push_back(param(s));
  for (const LeafSpec &s : L.captures) caps.push_back(param(s));
  b.num_params = p;

  // The forward body, its params mapped onto these.
  const Graph &f = *L.body;
  std::vector<int32_t> map(size_t(f.size()));
  for (int32_t i = 0; i < f.size(); i++) {
    GraphNode n = f[i];
    if (n.op == Op::Param) {
      size_t k = size_t(n.param_index);
      map[size_t(i)] = k == 0         ? step
                       : k <= nc      ? saved[k - 1]
                       : k <= nc + nx ? xs[k - 1 - nc]
                                      : caps[k - 1 - nc - nx];
      continue;
    }
    for (int q = 0; q < op_arity(n.op); q++) n.in[q] = map[size_t(n.in[q])];
    map[size_t(i)] = b.record(n);
  }
  b.adopt_constants(f);
  std::vector<int32_t> outs, seeds;
  for (size_t k = 0; k < nc + ny; k++) {
    outs.push_back(map[size_t(f.outputs[k].node)]);
    seeds.push_back(k < nc ? g_carry[k] : g_y[k - nc]);
  }
  std::vector<int32_t> wrt = saved;
  wrt.insert(wrt.end(), xs.begin(), xs.end());
  wrt.insert(wrt.end(), caps.begin(), caps.end());
  std::vector<int32_t> d = append_vjp(b, outs, seeds, wrt);
  auto out = [&](int32_t node) { b.outputs.push_back({node, b[node].is_number}); };
  for (size_t k = 0; k < nc; k++)
    out(L.save_carries ? b.binary("graph-grad", Op::Add, d[k], g_saved[k]) : d[k]);
  for (size_t k = 0; k < ncap; k++) out(b.binary("graph-grad", Op::Add, g_acc[k], d[nc + nx + k]));
  for (size_t k = 0; k < nx; k++) out(d[nc + k]);
  auto result = std::make_shared<Graph>();
  optimise_into(b, *result);
  return result;
}

}  // namespace

void record_loop_gradient(Graph &g, int32_t i, int32_t adj, bool need_carry, bool need_consts,
                          int32_t &carry_adj, int32_t &consts_adj) {
  const GraphNode n = g[i];
  const LoopBody &L = *n.loop;
  if (L.kind == LoopKind::While)
    throw_error(
        "graph-grad: cannot differentiate through while-loop (its number of steps is not known while "
        "tracing); use fori-loop or scan");
  carry_adj = consts_adj = -1;
  if (L.trips == 0) return;
  const int64_t C = L.carry_size(), CAP = L.capture_size(), X = L.xs_size(), Y = L.ys_size();

  // The forward loop again, keeping each step's incoming carry.
  auto saving = std::make_shared<LoopBody>(L);
  saving->save_carries = true;
  GraphNode fwd = n;
  fwd.loop = saving.get();
  fwd.shape = Shape::of({saving->result_size()});
  g.keep_loop(saving.get());
  int32_t forward = g.record(fwd);

  auto back = std::make_shared<LoopBody>();
  back->kind = LoopKind::Scan;
  back->trips = L.trips;
  back->reverse = !L.reverse;
  back->carry = L.carry;
  back->carry.insert(back->carry.end(), L.captures.begin(), L.captures.end());
  back->xs = L.carry;
  back->xs.insert(back->xs.end(), L.xs.begin(), L.xs.end());
  back->xs.insert(back->xs.end(), L.ys.begin(), L.ys.end());
  if (L.save_carries) back->xs.insert(back->xs.end(), L.carry.begin(), L.carry.end());
  back->ys = L.xs;
  back->captures = L.captures;
  back->body = backward_body(L);
  g.keep_loop(back.get());

  int32_t zeros = CAP ? g.broadcast_to(g.constant(0.0, false), Shape::of({CAP})) : -1;
  int32_t carry_in = join(g, {piece(g, adj, 0, C), zeros});
  int32_t consts_in =
      join(g, {piece(g, n.in[1], 0, CAP), piece(g, forward, C + Y, C * L.trips), piece(g, n.in[1], CAP, X),
               piece(g, adj, C, Y), L.save_carries ? piece(g, adj, C + Y, C * L.trips) : -1});
  GraphNode bn;
  bn.op = Op::Loop;
  bn.loop = back.get();
  bn.in[0] = carry_in;
  bn.in[1] = consts_in;
  bn.shape = Shape::of({back->result_size()});
  int32_t backward = g.record(bn);
  if (need_carry && C) carry_adj = piece(g, backward, 0, C);
  if (need_consts && CAP + X) consts_adj = piece(g, backward, C, CAP + X);
}

}  // namespace kiln

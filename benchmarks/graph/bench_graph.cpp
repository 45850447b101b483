// bench_graph.cpp — what graph-grad costs beyond its kernels (docs/graph.md; the
// graph issue's performance targets).
//
//   trace+optimise  build_grad_graph on the benchmark loss, no evaluation
//                   (target: under 10 microseconds)
//   step            (graph-grad loss x W b t nn) through apply_proc: trace,
//                   optimise, interpret, allocate the results
//   kernels alone   the same optimised graph's nodes run through eval_node into
//                   preallocated buffers: nothing but the kernel calls
//                   (target: step within 1.2x of this at 64x256->64)
//
// Build and run with benchmarks/graph/run.sh (links the objects of a build dir).
#include <chrono>
#include <cstdio>
#include <vector>

#include "compiler/graph.h"
#include "compiler/graph_build.h"
#include "compiler/graph_eval.h"
#include "runtime/big_stack.h"
#include "runtime/eval.h"
#include "runtime/tensor.h"
#include "stdlib/boot.h"

using namespace kiln;
using Clock = std::chrono::steady_clock;

namespace {

double micros_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// Runs every computed node of `g` once, args already bound in `val`.
void run_kernels(const Graph &g, std::vector<const double *> &val, std::vector<std::vector<double>> &bufs) {
  const double *in[3];
  for (int32_t i = 0; i < g.size(); i++) {
    const GraphNode &n = g[i];
    if (n.op == Op::Param || n.op == Op::Const) continue;
    for (int k = 0; k < op_arity(n.op); k++) in[k] = val[size_t(n.in[k])];
    eval_node(g, n, in, bufs[size_t(i)].data());
  }
}

int bench(void *) {
  init_kiln();
  Value loss = eval_string(
      "(lambda (x w b t nn) (/ (tensor-sum (square (- (relu (+ (matmul x w) b)) t))) nn))", "bench");
  int64_t m = 64, k = 256, n = 64;
  Value args[6] = {loss,
                   eval_string("(tensor-randn '(64 256) 1)", "b"),
                   eval_string("(tensor-randn '(256 64) 2)", "b"),
                   make_double(0.1),
                   eval_string("(tensor-randn '(64 64) 3)", "b"),
                   make_double(double(m * n))};
  ArgSpec specs[5];
  for (int i = 0; i < 5; i++) specs[i] = arg_spec_of("bench", i + 1, args[i + 1]);
  std::printf("shapes x %ldx%ld, W %ldx%ld, b number, t %ldx%ld, nn number; kernel threads %d (%s)\n", m, k,
              k, n, m, n, compute_threads(), simd_path());

  // 1. Trace + optimise only, into a reused graph as graph-grad does, and into
  // a fresh one as the JIT's build_grad_graph does.
  Graph scratch;
  const int trace_reps = 20000;
  double trace_us = 1e300, fresh_us = 1e300;
  for (int round = 0; round < 5; round++) {
    auto t0 = Clock::now();
    for (int i = 0; i < trace_reps; i++) build_grad_graph_into(scratch, "graph-grad", loss, 5, specs);
    trace_us = std::min(trace_us, micros_since(t0) / trace_reps);
    t0 = Clock::now();
    for (int i = 0; i < trace_reps; i++) build_grad_graph("graph-grad", loss, 5, specs);
    fresh_us = std::min(fresh_us, micros_since(t0) / trace_reps);
  }
  auto g = build_grad_graph("graph-grad", loss, 5, specs);
  std::printf("trace+optimise: %.2f us per call into a reused graph, %.2f us into a new one (%d nodes)\n",
              trace_us, fresh_us, g->size());
  Clock::time_point t0;

  // 2. Kernels alone, on preallocated buffers.
  std::vector<const double *> val(size_t(g->size()));
  std::vector<std::vector<double>> bufs(size_t(g->size()));
  std::vector<double> scalars(5);
  for (int32_t i = 0; i < g->size(); i++) {
    const GraphNode &nd = (*g)[i];
    if (nd.op == Op::Param) {
      Value a = args[nd.param_index + 1];
      scalars[size_t(nd.param_index)] = is_tensor(a) ? 0 : number_as_double(a);
      val[size_t(i)] = is_tensor(a) ? tensor_of(a)->data : &scalars[size_t(nd.param_index)];
    } else if (nd.op == Op::Const) {
      val[size_t(i)] = nd.const_data ? nd.const_data : &nd.scalar;
    } else {
      bufs[size_t(i)].resize(size_t(nd.size()));
      val[size_t(i)] = bufs[size_t(i)].data();
    }
  }
  const int reps = 400;
  for (int i = 0; i < 50; i++) run_kernels(*g, val, bufs);
  double best_kernels = 1e300, best_step = 1e300;
  Value grad_fn = sym(intern("graph-grad"))->global;
  for (int round = 0; round < 5; round++) {
    t0 = Clock::now();
    for (int i = 0; i < reps; i++) run_kernels(*g, val, bufs);
    best_kernels = std::min(best_kernels, micros_since(t0) / reps);
    // 3. The whole step as Lisp sees it.
    t0 = Clock::now();
    for (int i = 0; i < reps; i++) apply_proc(grad_fn, 6, args);
    best_step = std::min(best_step, micros_since(t0) / reps);
  }
  std::printf("kernels alone: %.1f us per step\n", best_kernels);
  std::printf("graph-grad step: %.1f us per step (%.3fx the kernels)\n", best_step, best_step / best_kernels);
  return 0;
}

}  // namespace

int main() {
  gc_init();
  return run_on_big_stack(bench, nullptr);
}

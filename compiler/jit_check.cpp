// jit_check.cpp — `kiln --jit-check`: compile and run a tiny kernel in memory,
// compare it with the graph interpreter, and say what works.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "compiler/codegen.h"
#include "compiler/graph_eval.h"
#include "compiler/jit_context.h"
#include "compiler/kernel_cache.h"
#include "compiler/kernel_object.h"
#include "runtime/tensor.h"

namespace kiln {

int jit_check_main() {
  std::printf("jit-check: libgccjit %s, CPU level %s (%d doubles per vector)\n", jit_version_string().c_str(),
              jit_march(), jit_vector_doubles());
  std::string flags;
  for (const std::string &f : jit_flags()) flags += (flags.empty() ? "" : " ") + f;
  std::printf("jit-check: flags %s\n", flags.c_str());

  std::string dir = kernel_cache_dir();
  if (dir.empty()) {
    std::printf("jit-check: kernel cache off (KILN_CACHE_DIR=off or no home directory)\n");
  } else {
    std::string problem = kernel_cache_problem(dir);
    std::printf(
        "jit-check: kernel cache %s (%s)\n", dir.c_str(),
        problem.empty() ? "writable" : ("NOT usable, " + problem + ": kernels compile in memory").c_str());
  }

  // relu(x W + 0.5) on 5x7 and 7x9: a matmul with remainder tiles, a broadcast
  // scalar and a selection, compared with the interpreter bit for bit.
  Graph g;
  ArgSpec sx{Shape::of({5, 7}), false}, sw{Shape::of({7, 9}), false};
  int32_t x = g.param(0, sx), w = g.param(1, sw);
  int32_t m = g.matmul("jit-check", x, w);
  int32_t y = g.unary(Op::Relu, g.binary("jit-check", Op::Add, m, g.constant(0.5)));
  g.outputs.push_back(GraphOutput{y, false});

  auto t0 = std::chrono::steady_clock::now();
  gcc_jit_context *ctx = jit_new_context();
  KernelLayout layout = plan_kernel(g);
  emit_kernel(ctx, g, layout);
  StderrCapture cap;
  gcc_jit_result *res = gcc_jit_context_compile(ctx);
  std::string printed = cap.end();
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!res) {
    std::printf("jit-check: compiling FAILED: %s\n", jit_failure_reason(ctx, printed).c_str());
    std::printf("jit-check: kernels will run in the graph interpreter (same results, slower)\n");
    gcc_jit_context_release(ctx);
    return 1;
  }
  std::printf("jit-check: compiled a test kernel in memory in %.1f ms\n", ms);
  auto fn = reinterpret_cast<KernelFn>(gcc_jit_result_get_code(res, kKernelFunction));

  Tensor *tx = alloc_tensor(sx.shape), *tw = alloc_tensor(sw.shape);
  for (int64_t i = 0; i < tx->size; i++) tx->data[i] = double((7 * i) % 17 - 8) / 8.0;
  for (int64_t i = 0; i < tw->size; i++) tw->data[i] = double((7 * i + 3) % 17 - 8) / 8.0;
  Value args[2] = {from_ptr(tx), from_ptr(tw)};
  Value want;
  graph_eval(g, args, &want);
  Tensor *got = alloc_tensor(g[y].shape);
  double *argp[2] = {tx->data, tw->data};
  double *resp[1] = {got->data};
  std::vector<double> scratch(size_t(layout.scratch_doubles + 8));
  fn(argp, resp, scratch.data(), kernel_par);
  bool same = std::memcmp(got->data, tensor_of(want)->data, sizeof(double) * size_t(got->size)) == 0;
  gcc_jit_result_release(res);
  gcc_jit_context_release(ctx);
  std::printf("jit-check: running it: %s\n", same ? "matches the interpreter bit for bit"
                                                  : "DIFFERS from the interpreter (a code generation bug)");
  std::printf("jit-check: %s\n", same ? "ok" : "FAILED");
  return same ? 0 : 1;
}

}  // namespace kiln

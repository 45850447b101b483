// kernel_object.h — compiled kernels as Kiln values (a registered object type; docs/jit.md).
//
// Invariants:
//   * A Kernel is a GC object; the graph, layout and scratch area it points to are
//     plain C++ memory owned by the kernel and never freed (kernels are created
//     rarely and their machine code cannot be unloaded while a caller may hold
//     the entry point). The Graph roots its own constant tensors.
//   * Argument shapes are checked once per call, before the native code runs;
//     the native code then reads the arguments in place and writes straight into
//     freshly allocated result tensors.
//   * `fn == nullptr` means no native code (yet): libgccjit could not compile, or
//     the kernel is still compiling in the background (`pending` set, SPEC §17).
//     The kernel then evaluates its graph with the interpreter (graph_eval.h),
//     which gives the same bits, so taking the native code over when the
//     background compile is done changes nothing but the speed.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "compiler/batch_family.h"
#include "compiler/graph.h"
#include "compiler/kernel_plan.h"
#include "compiler/tree.h"
#include "runtime/object.h"

namespace kiln {

using KernelFn = void (*)(double **args, double **results, double *scratch, KernelParFn par);
// The `par` callback every kernel is called with: Kiln's thread pool with
// compute_threads() threads (KILN_THREADS), or a plain loop when that is 1.
void kernel_par(long chunks, void (*chunk)(void *, long), void *ctx);

struct BackgroundCompile;

struct Kernel {
  ObjHeader h;
  const char *name;  // GC atomic copy
  KernelFn fn;       // nullptr: interpreter fallback
  Graph *graph;      // owned, never freed
  KernelLayout *layout;
  double *scratch;             // 64-byte aligned, layout->scratch_doubles
  ArgSpec *specs;              // graph->num_params entries: one per argument leaf
  TreeLayout *trees;           // GC memory: the arguments' and result's structure (tree.h)
  BackgroundCompile *pending;  // the background compile still to be taken over, or null
  // Batch families (batch_family.h, docs/jit.md "Batch families"): the family
  // the code is compiled for (owned by the kernel compiled for it, never
  // freed; null: exact shapes) and the leading size n this object passes it.
  // A member of a family (`family_code` set) has its own graph, traced at n
  // (it interprets that graph until the family's code is ready), and borrows
  // the family kernel's code, plan and scratch.
  const BatchFamily *family;
  int64_t rows;
  Kernel *family_code;
};

// The kernels' type tag (register_kernel_type registers it on first use).
uint8_t kernel_type();
inline bool is_kernel(Value v) { return has_type(v, kernel_type()); }

// Compiles `graph` (taking ownership) into a kernel named `name`. When
// libgccjit fails, prints one warning naming the cause and returns a kernel
// that interprets the graph.
Value make_kernel(const std::string &name, std::unique_ptr<Graph> graph, const ArgSpec *specs, bool grad);
// (With `grad`, the kernel returns the list of all of graph's outputs.)
// The same for a graph built by build_graph_into with `layout` (kept by the kernel).
Value make_kernel(const std::string &name, std::unique_ptr<Graph> graph, const ArgSpec *specs,
                  TreeLayout *layout);
// The same, but the compile is queued on the background thread (kernel_tiering.h):
// the kernel interprets until its native code is ready, then switches.
Value make_kernel_in_background(const std::string &name, std::unique_ptr<Graph> graph, const ArgSpec *specs,
                                TreeLayout *layout);
// The same two for a batch family found for `graph` (planned at family->rows):
// when the lowerings cannot take every batched extent at run time
// (family_lowerable), the kernel is compiled for its exact shapes instead.
Value make_kernel(const std::string &name, std::unique_ptr<Graph> graph, const ArgSpec *specs,
                  TreeLayout *layout, std::unique_ptr<BatchFamily> family, bool background);
// A kernel for `graph` (traced at leading size n, in_batch_family of the
// family kernel's) that runs the family kernel's code: no compile of its own.
Value make_family_member(Value family_kernel, std::unique_ptr<Graph> graph, const ArgSpec *specs,
                         TreeLayout *layout, int64_t n);
// The family a kernel's code is compiled for, or null.
const BatchFamily *kernel_family(Value kernel);
// Under KILN_JIT_LOG, writes `kiln-jit: TEXT` (jit_message).
void jit_log_line(const std::string &text);
// True once a kernel runs native code. Takes a finished background compile over.
bool kernel_ready(Value kernel);
// Waits for a kernel's background compile to finish (ready or failed).
void wait_for_kernel(Value kernel);

// Calls `kernel` as its apply hook does, taking the buffers of its tensor
// outputs from `*spares` where one of the same element count is there (a Lisp
// list of donated tensors, see donate_tensor; those used are removed from it).
// The spares must be no argument's buffer: donated in an earlier call.
Value apply_kernel_reusing(Value kernel, int argc, Value *argv, Value *spares);

// Donation (docs/jit.md "Donation"). A donated tensor is the tensor object with
// its type changed to "donated tensor": every builtin, arithmetic and kernel
// given one raises `WHO: argument N: tensor was donated to a kernel and is no
// longer valid (#<donated tensor 8x16>)`. Its buffer goes onto `*spares` for a
// later call's outputs unless another object reads it (kTensorDataShared).
void donate_tensor(Value tensor, Value *spares);
bool is_donated_tensor(Value v);
[[noreturn]] void donated_tensor_error(const std::string &who, const std::string &where, Value v);
// Forgets the buffers on `spares` (when they are not reused).
void release_spares(Value spares);

// Registers the kernel type and its hooks (apply, print, name). Idempotent.
void register_kernel_type();

// How the last make_kernel obtained its code (tests, --jit-check).
struct KernelBuildInfo {
  bool compiled = false;
  bool cache_hit = false;
  bool in_memory = false;
  double millis = 0.0;
  std::string failure;
};
const KernelBuildInfo &last_kernel_build();

}  // namespace kiln

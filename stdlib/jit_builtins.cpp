// jit_builtins.cpp — graph-compile and graph-compile-grad (docs/jit.md), and the
// `kiln --jit-check` hook.
//
// Invariant: a kernel is built from exactly the optimised graph graph-eval /
// graph-grad interpret (build_forward_graph / build_grad_graph), so the compiled
// and interpreted paths agree bit for bit.
#include <cstring>
#include <vector>

#include "compiler/graph.h"
#include "compiler/graph_build.h"
#include "compiler/jit_context.h"
#include "compiler/kernel_object.h"
#include "compiler/kernel_tiering.h"
#include "compiler/trace.h"
#include "compiler/tree.h"
#include "runtime/eval.h"
#include "runtime/global_reads.h"
#include "runtime/tensor.h"
#include "stdlib/builtins.h"

namespace kiln {

// runtime/eval.cpp (declared in eval_internal.h, whose Node clashes with graph.h's).
Value closure_name(Value closure);

namespace {

std::string procedure_name(Value f) {
  if (is_closure(f)) {
    Value n = closure_name(f);
    if (n != NOVALUE && is_symbol(n)) return std::string(symbol_name(n));
  } else if (is_builtin(f)) {
    return as<Builtin>(f)->name;
  }
  return "anonymous";
}

// A kernel for F at the signature of `args` (F's arguments; messages number
// them from pos_offset + 1): graph-compile, graph-compile-grad and a jit miss
// (`background`: queued, the kernel interpreting meanwhile; SPEC §17).
Value compile_kernel(const char *who, Value f, int argc, const Value *args, int pos_offset, bool grad,
                     bool background = false) {
  TreeLayout *layout = layout_arguments(who, argc, args, pos_offset, false);
  layout->grad = grad;
  std::vector<ArgSpec> specs;
  argument_leaves(who, *layout, args, specs);
  auto g = std::make_unique<Graph>();
  build_graph_into(*g, who, f, *layout, specs.data());
  if (background) return make_kernel_in_background(procedure_name(f), std::move(g), specs.data(), layout);
  return make_kernel(procedure_name(f), std::move(g), specs.data(), layout);
}

Value compile_common(const char *who, int argc, Value *argv, bool grad) {
  // A kernel inside a traced function would need the trace's values: `jit` of
  // the enclosing procedure compiles it all instead.
  if (tracing_active()) throw_errorf("graph: '{}' is not supported inside a traced function", who);
  Value f = arg_proc(who, 1, argv[0]);
  return compile_kernel(who, f, argc - 1, argv + 1, 1, grad);
}

// ---- jit ------------------------------------------------------------------------
//
// (jit F) is a procedure that keeps one kernel per call signature. The signature
// is a few words per leaf (kind and shape) plus the trees' structure, computed
// without allocating; a hit costs the signature, a linear search of the few
// signatures seen, one compare of the global epoch (global_reads.h: has any
// top-level variable been assigned since the trace's reads were last compared?),
// and the kernel's own argument checks.

enum SignatureWord : int64_t { kNumberLeaf = 1, kTensorLeaf, kList, kVector, kOther, kTooDeep, kEntry };

// The argument signature_of is looking at (0-based), for the donation error.
thread_local int t_signature_arg = 0;

void signature_of(Value v, std::vector<int64_t> &sig, int depth) {
  if (depth > kMaxTreeDepth) {
    sig.push_back(kTooDeep);
    return;
  }
  if (is_tensor(v)) {
    const Shape &s = tensor_of(v)->shape;
    sig.push_back(kTensorLeaf);
    sig.push_back(s.rank);
    for (int i = 0; i < s.rank; i++) sig.push_back(s.dim[i]);
  } else if (is_number(v)) {
    sig.push_back(kNumberLeaf);
  } else if (is_donated_tensor(v)) {
    donated_tensor_error("jit", fmt::format("argument {}", t_signature_arg + 1), v);
  } else if (is_vector(v)) {
    int64_t n = as<Vector>(v)->len;
    sig.push_back(kVector);
    sig.push_back(n);
    for (int64_t i = 0; i < n; i++) signature_of(as<Vector>(v)->items[i], sig, depth + 1);
  } else if (v == NIL || is_pair(v)) {
    int64_t n = list_length(v);
    sig.push_back(kList);
    sig.push_back(n);
    if (n < 0) return;  // improper or circular: the build raises
    for (Value c = v; is_pair(c); c = cdr(c)) {
      Value e = car(c);
      if (is_tree_entry(e)) {
        // A key is structure: its symbol's address (the kernel's skeleton keeps the
        // symbol alive, so the address cannot be reused by another symbol).
        sig.push_back(kEntry);
        sig.push_back(int64_t(car(e).bits));
        e = cdr(e);
      }
      signature_of(e, sig, depth + 1);
    }
  } else {
    sig.push_back(kOther);
  }
}

// ---- batch families (docs/jit.md "Batch families") --------------------------------

// Traces F once more with every tensor leaf whose leading size is N (the last
// rank >= 1 leaf's) at N - 1, and compares: a family planned at N when the two
// graphs differ only in those extents (find_batch_family). A trace that fails
// at N - 1 (F needs that size) means no family.
std::unique_ptr<BatchFamily> probe_batch_family(Value f, const TreeLayout &layout,
                                                const std::vector<ArgSpec> &specs, const Graph &g) {
  int64_t rows = 0;
  for (size_t i = specs.size(); i-- > 0;)
    if (!specs[i].is_number && specs[i].shape.rank >= 1) {
      rows = specs[i].shape.dim[0];
      break;
    }
  if (rows < 2) return nullptr;
  std::vector<ArgSpec> fewer = specs;
  for (ArgSpec &s : fewer)
    if (!s.is_number && s.shape.rank >= 1 && s.shape.dim[0] == rows) s.shape.dim[0] = rows - 1;
  TreeLayout probe_layout = layout;  // the build sets out_skeleton
  Graph probe;
  try {
    build_graph_into(probe, "jit", f, probe_layout, fewer.data());
  } catch (const LispError &) {
    return nullptr;
  }
  auto family = std::make_unique<BatchFamily>();
  if (!find_batch_family(g, rows, probe, rows - 1, *family)) return nullptr;
  return family;
}

// The leading size n of `specs` for the family kernel `fk`, or 0 when a fixed
// leaf differs or the batched leaves disagree (in_batch_family checks the rest).
int64_t member_rows(Value fk, const std::vector<ArgSpec> &specs) {
  const Kernel *k = as<Kernel>(fk);
  const BatchFamily &f = *k->family;
  const Graph &fg = *k->graph;
  if (int64_t(specs.size()) != fg.num_params) return 0;
  int64_t n = 0;
  for (int32_t i = 0; i < fg.size(); i++) {
    const GraphNode &p = fg[i];
    if (p.op != Op::Param) continue;
    const ArgSpec &s = specs[size_t(p.param_index)];
    if (s.is_number != k->specs[p.param_index].is_number || s.shape.rank != p.shape.rank) return 0;
    for (int d = 0; d < p.shape.rank; d++) {
      if (d != f.axis[size_t(i)]) {
        if (s.shape.dim[d] != p.shape.dim[d]) return 0;
      } else if (n == 0) {
        n = s.shape.dim[d];
      } else if (s.shape.dim[d] != n) {
        return 0;
      }
    }
  }
  return n >= 1 && n <= f.rows ? n : 0;
}

std::string leaf_shapes(const std::vector<ArgSpec> &specs) {
  std::string s;
  for (const ArgSpec &a : specs) {
    if (!s.empty()) s += ' ';
    s += a.is_number ? std::string("number") : shape_string(a.shape);
  }
  return s;
}

struct JitProc {
  ObjHeader h;
  Value f;
  Value donate;  // the donated arguments' 0-based indices (a list), or NIL
  Value spares;  // the buffers the last call's donated tensors left (kernel_object.h)
  int32_t count, capacity;
  Value *kernels;  // GC array: one kernel per signature
  int64_t **sigs;  // GC array of GC atomic arrays: sigs[i][0] is the length
  // Per signature, the top-level variables its trace read with their values
  // (global_reads.h), and the g_global_epoch at which they last compared equal.
  Value *reads;      // GC array
  uint64_t *epochs;  // GC atomic array
};

uint8_t jit_proc_type();

// Every tensor leaf of `tree` donated (numbers and other leaves are left alone).
void donate_leaves(Value tree, Value *spares, int depth) {
  if (depth > kMaxTreeDepth) return;
  if (is_tensor(tree)) {
    donate_tensor(tree, spares);
  } else if (is_vector(tree)) {
    for (int64_t i = 0; i < as<Vector>(tree)->len; i++)
      donate_leaves(as<Vector>(tree)->items[i], spares, depth + 1);
  } else {
    for (Value c = tree; is_pair(c); c = cdr(c)) donate_leaves(car(c), spares, depth + 1);
  }
}

// A kernel for a new signature: a member of a family kernel p already has
// when the trace is that family's graph at its leading size (no compile),
// else a new kernel, for a batch family when probe_batch_family finds one.
Value jit_kernel_for(JitProc *p, int argc, Value *argv) {
  TreeLayout *layout = layout_arguments("jit", argc, argv, 0, false);
  std::vector<ArgSpec> specs;
  argument_leaves("jit", *layout, argv, specs);
  auto g = std::make_unique<Graph>();
  build_graph_into(*g, "jit", p->f, *layout, specs.data());
  std::string name = procedure_name(p->f);
  std::unique_ptr<BatchFamily> family;
  if (batch_families_enabled()) {
    for (int32_t e = 0; e < p->count; e++) {
      Value fk = p->kernels[e];
      const Kernel *k = as<Kernel>(fk);
      if (!k->family || k->family_code) continue;
      int64_t n = member_rows(fk, specs);
      if (n == 0 || !in_batch_family(*k->graph, *k->family, *g, n)) continue;
      jit_log_line(
          fmt::format("{}: {} runs the kernel of the batch family of leading size up to {} (no compile)",
                      name, leaf_shapes(specs), k->family->rows));
      return make_family_member(fk, std::move(g), specs.data(), layout, n);
    }
    family = probe_batch_family(p->f, *layout, specs, *g);
  }
  bool background = !jit_sync_mode();
  Value kernel = make_kernel(name, std::move(g), specs.data(), layout, std::move(family), background);
  if (const BatchFamily *f = kernel_family(kernel))
    jit_log_line(fmt::format("{}: {}: a kernel for the batch family of leading size up to {}", name,
                             leaf_shapes(specs), f->rows));
  return kernel;
}

Value call_kernel(JitProc *p, Value kernel, int argc, Value *argv) {
  if (p->donate == NIL) return g_type_hooks[kernel_type()].apply(kernel, argc, argv);
  for (Value d = p->donate; is_pair(d); d = cdr(d))
    if (int_of(car(d)) >= argc)
      throw_errorf("jit: donated argument index {} is past the call's {} argument{}", int_of(car(d)), argc,
                   argc == 1 ? "" : "s");
  // Outputs may take the buffers the previous call's donated tensors left: they
  // are no argument of this call (a donated tensor passed again raised above).
  Value result = apply_kernel_reusing(kernel, argc, argv, &p->spares);
  release_spares(p->spares);  // unused ones: the buffers go with their tensors
  p->spares = NIL;
  for (Value d = p->donate; is_pair(d); d = cdr(d)) donate_leaves(argv[int_of(car(d))], &p->spares, 0);
  return result;
}

// Traces and compiles F for this call's signature; `reads` gets what the trace read.
Value trace_for_signature(JitProc *p, int argc, Value *argv, Value &reads) {
  jit_drain_messages();
  GlobalReadRecorder recorder;
  Value kernel = jit_kernel_for(p, argc, argv);
  reads = recorder.snapshot();
  return kernel;
}

Value jit_apply(Value self, int argc, Value *argv) {
  JitProc *p = as<JitProc>(self);
  // Inside a traced function a jitted procedure is inlined, as in JAX: F's
  // nodes go into the enclosing trace (and its kernel).
  if (tracing_active()) return apply_proc(p->f, argc, argv);
  static thread_local std::vector<int64_t> sig;
  sig.clear();
  sig.push_back(argc);
  for (int i = 0; i < argc; i++) {
    t_signature_arg = i;
    signature_of(argv[i], sig, 0);
  }
  int64_t len = int64_t(sig.size());
  for (int32_t e = 0; e < p->count; e++) {
    const int64_t *s = p->sigs[e];
    if (s[0] == len && std::memcmp(s + 1, sig.data(), sizeof(int64_t) * size_t(len)) == 0) {
      // A top-level variable the trace read now holds another value (SPEC §15):
      // trace again, replacing the kernel. One compare while no variable was assigned.
      if (p->epochs[e] != g_global_epoch) [[unlikely]] {
        if (!globals_unchanged(p->reads[e])) {
          Value reads = NIL;
          Value kernel = trace_for_signature(p, argc, argv, reads);
          p->kernels[e] = kernel;
          p->reads[e] = reads;
        }
        p->epochs[e] = g_global_epoch;
      }
      return call_kernel(p, p->kernels[e], argc, argv);
    }
  }
  // First sight of this signature: trace, and compile (or load from the disk
  // cache) in the background while the kernel interprets, unless KILN_JIT=sync.
  Value reads = NIL;
  Value kernel = trace_for_signature(p, argc, argv, reads);
  uint64_t epoch = g_global_epoch;
  if (p->count == p->capacity) {
    int32_t cap = p->capacity * 2;
    auto *ks = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(cap)));
    auto *ss = static_cast<int64_t **>(gc_alloc(sizeof(int64_t *) * size_t(cap)));
    auto *rs = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(cap)));
    auto *es = static_cast<uint64_t *>(gc_alloc_atomic(sizeof(uint64_t) * size_t(cap)));
    copy_values(ks, p->kernels, p->count);
    copy_values(rs, p->reads, p->count);
    for (int32_t e = 0; e < p->count; e++) ss[e] = p->sigs[e], es[e] = p->epochs[e];
    p->kernels = ks;
    p->sigs = ss;
    p->reads = rs;
    p->epochs = es;
    p->capacity = cap;
  }
  auto *stored = static_cast<int64_t *>(gc_alloc_atomic(sizeof(int64_t) * size_t(len + 1)));
  stored[0] = len;
  std::memcpy(stored + 1, sig.data(), sizeof(int64_t) * size_t(len));
  p->sigs[p->count] = stored;
  p->kernels[p->count] = kernel;
  p->reads[p->count] = reads;
  p->epochs[p->count] = epoch;
  p->count++;
  return call_kernel(p, kernel, argc, argv);
}

uint8_t jit_proc_type() {
  static const uint8_t type = [] {
    uint8_t t = register_object_type("jit procedure");
    TypeHooks &h = g_type_hooks[t];
    h.print = [](std::string &out, Value v, bool) {
      out += "#<procedure jit ";
      out += procedure_name(as<JitProc>(v)->f);
      out += '>';
    };
    h.apply = jit_apply;
    return t;
  }();
  return type;
}

// (jit F 'donate ARGNUMS): ARGNUMS a 0-based index or a list of them, as grad's.
Value donated_indices(int argc, Value *argv) {
  if (argc == 1) return NIL;
  if (argc == 2 || argv[1] != intern("donate"))
    throw_errorf("jit: expected (jit F) or (jit F 'donate ARGNUMS), got {} option argument{}", argc - 1,
                 argc == 2 ? "" : "s");
  Value nums = is_pair(argv[2]) || argv[2] == NIL ? argv[2] : list1(argv[2]);
  if (list_length(nums) < 0) type_error("jit", 3, "a 0-based argument index or a list of them", argv[2]);
  for (Value c = nums; is_pair(c); c = cdr(c))
    if (!is_int(car(c)) || int_of(car(c)) < 0)
      type_error("jit", 3, "a 0-based argument index or a list of them", argv[2]);
  return nums;
}

Value b_jit(int argc, Value *argv) {
  arg_proc("jit", 1, argv[0]);
  Value donate = donated_indices(argc, argv);
  JitProc *p = alloc_obj<JitProc>(jit_proc_type());
  p->f = argv[0];
  p->donate = donate;
  p->spares = NIL;
  p->count = 0;
  p->capacity = 4;
  p->kernels = static_cast<Value *>(gc_alloc(sizeof(Value) * 4));
  p->sigs = static_cast<int64_t **>(gc_alloc(sizeof(int64_t *) * 4));
  p->reads = static_cast<Value *>(gc_alloc(sizeof(Value) * 4));
  p->epochs = static_cast<uint64_t *>(gc_alloc_atomic(sizeof(uint64_t) * 4));
  return from_ptr(p);
}

// (jit-kernels J): the kernels J has compiled so far, one per signature, oldest first.
Value b_jit_kernels(int, Value *argv) {
  if (!has_type(argv[0], jit_proc_type())) type_error("jit-kernels", 1, "a procedure made by jit", argv[0]);
  JitProc *p = as<JitProc>(argv[0]);
  return list_from(p->kernels, p->count);
}

// (kernel-ready? K): #t once K runs native code; #f while its compile is still
// running in the background, or after libgccjit failed (K then interprets).
Value b_kernel_ready_p(int, Value *argv) {
  if (!is_kernel(argv[0])) type_error("kernel-ready?", 1, "a kernel", argv[0]);
  return boolv(kernel_ready(argv[0]));
}

// (kernel-batch-family K): the largest leading size of the batch family whose
// code K runs (docs/jit.md "Batch families"), or #f when K's code is compiled
// for K's exact shapes.
Value b_kernel_batch_family(int, Value *argv) {
  if (!is_kernel(argv[0])) type_error("kernel-batch-family", 1, "a kernel", argv[0]);
  const BatchFamily *f = kernel_family(argv[0]);
  return f ? make_int(f->rows) : FALSE_V;
}

// (jit-wait J): waits until every kernel J has so far has finished compiling
// (ready or failed); returns J's kernels, as jit-kernels.
Value b_jit_wait(int, Value *argv) {
  if (!has_type(argv[0], jit_proc_type())) type_error("jit-wait", 1, "a procedure made by jit", argv[0]);
  JitProc *p = as<JitProc>(argv[0]);
  for (int32_t e = 0; e < p->count; e++) wait_for_kernel(p->kernels[e]);
  return list_from(p->kernels, p->count);
}

Value b_graph_compile(int argc, Value *argv) { return compile_common("graph-compile", argc, argv, false); }
Value b_graph_compile_grad(int argc, Value *argv) {
  return compile_common("graph-compile-grad", argc, argv, true);
}
Value b_kernel_p(int, Value *argv) { return boolv(is_kernel(argv[0])); }

BuiltinRegistrar jit_builtins_registrar([] {
  register_kernel_type();
  jit_exclude_from_gc_roots();
  defbuiltin(
      "graph-compile", 1, -1, b_graph_compile,
      "(graph-compile F ARG...) compiles F's optimised graph, specialised to the shapes of the example "
      "ARGs, to a native kernel computing F's value.");
  defbuiltin("graph-compile-grad", 1, -1, b_graph_compile_grad,
             "(graph-compile-grad F ARG...) compiles F's forward+backward graph to a native kernel returning "
             "exactly what (graph-grad F ARG...) returns, bit for bit.");
  defbuiltin("kernel?", 1, 1, b_kernel_p, "(kernel? X) is #t when X is a compiled kernel.");
  defbuiltin(
      "jit", 1, 3, b_jit,
      "(jit F): a procedure computing F's value with a native kernel per call signature (tree structure, "
      "number or tensor leaves, shapes), compiled in the background on first sight (the graph interpreter "
      "answers meanwhile, bit for bit) and kept in memory and the disk cache. (jit F 'donate ARGNUMS): the "
      "tensors of those arguments are handed over; the kernel may write its results into their buffers.");
  defbuiltin("jit-kernels", 1, 1, b_jit_kernels,
             "(jit-kernels J): the kernels the jit procedure J has compiled, one per signature seen.");
  defbuiltin("jit-wait", 1, 1, b_jit_wait,
             "(jit-wait J): waits until every kernel of the jit procedure J has finished compiling in the "
             "background (ready or failed) and returns them, as jit-kernels.");
  defbuiltin("kernel-ready?", 1, 1, b_kernel_ready_p,
             "(kernel-ready? K) is #t once the kernel K runs native code, #f while it still compiles in the "
             "background (it interprets meanwhile) or when libgccjit could not compile it.");
  defbuiltin("kernel-batch-family", 1, 1, b_kernel_batch_family,
             "(kernel-batch-family K): the largest leading (batch) size of the family of signatures whose "
             "code the kernel K runs, the leading size read at run time; #f when K is compiled for its exact "
             "shapes.");
});

}  // namespace
}  // namespace kiln

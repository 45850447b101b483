// kernel_object.cpp — creating, printing and calling compiled kernels.
#include "compiler/kernel_object.h"

#include <alloca.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "compiler/codegen.h"
#include "compiler/collective.h"
#include "compiler/graph_eval.h"
#include "compiler/graph_text.h"
#include "compiler/jit_context.h"
#include "compiler/kernel_cache.h"
#include "compiler/kernel_tiering.h"
#include "runtime/args.h"
#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/tensor.h"
#include "runtime/tensor_shapes.h"
#include "runtime/threadpool.h"

namespace kiln {

static KernelBuildInfo g_last_build;

void kernel_par(long chunks, void (*chunk)(void *, long), void *ctx) {
  int threads = compute_threads();
  if (threads <= 1 || chunks <= 1) {
    for (long i = 0; i < chunks && !g_interrupt; i++) chunk(ctx, i);  // as parallel_for does
    return;
  }
  // int64_t is long on every target libgccjit builds kernels for here (LP64).
  parallel_for(chunks, threads, reinterpret_cast<void (*)(void *, int64_t)>(chunk), ctx);
}
const KernelBuildInfo &last_kernel_build() { return g_last_build; }

namespace {

struct BuildData {
  const Graph *graph;
  const KernelLayout *layout;
  const BatchFamily *family = nullptr;
};

void build_kernel(gcc_jit_context *ctx, void *data) {
  auto *d = static_cast<BuildData *>(data);
  emit_kernel(ctx, *d->graph, *d->layout, d->family);
}

std::string kernel_who(const Kernel *k) { return std::string("kernel ") + k->name; }

void print_kernel(std::string &out, Value v, bool) {
  const Kernel *k = as<Kernel>(v);
  out += "#<kernel ";
  out += k->name;
  out += " (";
  for (int i = 0; i < k->graph->num_params; i++) {  // one shape per leaf
    if (i) out += ' ';
    out += shape_string(k->specs[i].shape);
  }
  out += ")>";
}

// "8x16", or for rank 0 "a number" / "a scalar tensor", as the kernel errors name them.
std::string kind_and_shape(bool is_number, const Shape &s) {
  if (is_number) return "a number";
  return s.rank == 0 ? "a scalar tensor" : shape_string(s);
}

// "at argument 2" for a top-level leaf, "at argument 2, leaf 3" inside a tree.
std::string leaf_position(const TreeLayout &t, int64_t leaf) {
  int arg = 0;
  while (t.first_leaf[arg + 1] <= leaf) arg++;
  if (t.arg_skeletons[arg] == TRUE_V) return fmt::format("argument {}", arg + 1);
  return fmt::format("argument {}, leaf {}", arg + 1, leaf - t.first_leaf[arg] + 1);
}

bool log_switches() {
  static const bool on = [] {
    const char *s = std::getenv("KILN_JIT_LOG");
    return s && *s && std::strcmp(s, "0") != 0;
  }();
  return on;
}

// Takes a finished background compile over: from the next call on, k runs native
// code (or, after a failure, stays with the interpreter; the warning was queued).
void take_over(Kernel *k) {
  BackgroundCompile *job = k->pending;
  if (!job->done.load(std::memory_order_acquire)) return;
  k->pending = nullptr;
  const CompiledCode &code = job->code;
  g_last_build =
      KernelBuildInfo{code.fn != nullptr, code.cache_hit, code.in_memory, code.millis, code.failure};
  jit_drain_messages();
  k->fn = reinterpret_cast<KernelFn>(code.fn);
  if (k->fn && log_switches())
    jit_message(std::string("kiln-jit: ") + k->name + ": switching from the graph interpreter to the kernel");
}

uint8_t donated_type();

// The tensor output buffers a call takes from donated tensors (a Lisp list).
Value take_spare(Value *spares, int64_t size) {
  for (Value *link = spares; is_pair(*link); link = &as<Pair>(*link)->cdr) {
    Value v = car(*link);
    if (tensor_of(v)->size == size && tensor_of(v)->data) {
      *link = cdr(*link);
      return v;
    }
  }
  return NOVALUE;
}

Value apply_kernel_impl(Value self, int argc, Value *argv, Value *spares);
Value apply_kernel(Value self, int argc, Value *argv) { return apply_kernel_impl(self, argc, argv, nullptr); }

// A family member runs its family kernel's code once that is ready.
void borrow_family_code(Kernel *k) {
  Kernel *f = k->family_code;
  if (f->pending) take_over(f);
  k->fn = f->fn;
}

Value apply_kernel_impl(Value self, int argc, Value *argv, Value *spares) {
  Kernel *k = as<Kernel>(self);
  if (k->pending) [[unlikely]]
    take_over(k);
  if (!k->fn && k->family_code) [[unlikely]]
    borrow_family_code(k);
  const Graph &g = *k->graph;
  const TreeLayout &t = *k->trees;
  if (argc != t.nargs) arity_error(kernel_who(k), t.nargs, t.nargs, argc);
  int np = g.num_params;
  if (!t.flat) {
    std::string who = kernel_who(k);
    match_arguments(who.c_str(), t, argc, argv);
    Value *leaves = static_cast<Value *>(alloca(sizeof(Value) * size_t(np + 1)));
    flatten_arguments(t, argv, leaves);
    argv = leaves;
  }
  // Shapes are checked for every argument before anything runs.
  // The kind (number or tensor) is checked like the shape: a kernel compiled for a
  // number returns a number gradient, one for a rank-0 tensor a rank-0 tensor (docs/graph.md).
  for (int i = 0; i < np; i++) {
    Value v = argv[i];
    const ArgSpec &want = k->specs[i];
    if (!is_number(v) && !is_tensor(v)) {
      if (is_donated_tensor(v))
        donated_tensor_error(kernel_who(k), t.flat ? fmt::format("argument {}", i + 1) : leaf_position(t, i),
                             v);
      if (t.flat) type_error(kernel_who(k), i + 1, "a number or a tensor", v);
      throw_errorf("{}: {}: expected a number or a tensor, got {}", kernel_who(k), leaf_position(t, i),
                   error_value_string(v));
    }
    bool same = is_number(v) ? want.is_number : !want.is_number && tensor_of(v)->shape == want.shape;
    if (!same)
      throw_errorf("{}: compiled for {} at {}, got {}; compile again for new shapes", kernel_who(k),
                   kind_and_shape(want.is_number, want.shape), leaf_position(t, i),
                   is_number(v) ? kind_and_shape(true, Shape{}) : kind_and_shape(false, tensor_of(v)->shape));
  }
  size_t nout = g.outputs.size();
  Value *vals = static_cast<Value *>(alloca(sizeof(Value) * nout));
  if (!k->fn) {
    graph_eval(g, argv, vals);
    return assemble_results(t, vals);
  }
  size_t nconst = k->layout->const_nodes.size(), nloop = k->layout->loop_consts.size();
  double **args = static_cast<double **>(alloca(sizeof(double *) * (size_t(np) + nconst + nloop + 2)));
  double rows = double(k->rows);  // a family's run-time leading size (codegen.h)
  args[size_t(np) + nconst + nloop] = &rows;
  double *numbers = static_cast<double *>(alloca(sizeof(double) * (size_t(np) + nout + 1)));
  double *out_numbers = numbers + np;
  for (int i = 0; i < np; i++) {
    Value v = argv[i];
    if (is_tensor(v)) {
      args[i] = tensor_of(v)->data;
    } else {
      numbers[i] = number_as_double(v);
      args[i] = &numbers[i];
    }
  }
  for (size_t c = 0; c < nconst; c++)
    args[size_t(np) + c] = const_cast<double *>(g[k->layout->const_nodes[c]].const_data);
  for (size_t c = 0; c < nloop; c++)  // loop bodies' constants (kernel_plan.h)
    args[size_t(np) + nconst + c] = const_cast<double *>(k->layout->loop_consts[c]);
  double **results = static_cast<double **>(alloca(sizeof(double *) * (nout + 1)));
  // The tensor outputs' data in one block (alloc_tensor_group).
  const Shape **shapes = static_cast<const Shape **>(alloca(sizeof(Shape *) * (nout + 1)));
  Tensor **tensors = static_cast<Tensor **>(alloca(sizeof(Tensor *) * (nout + 1)));
  size_t ntensors = 0;
  for (size_t o = 0; o < nout; o++) {
    vals[o] = NOVALUE;
    if (g.outputs[o].as_number) continue;
    const Shape &shape = g[g.outputs[o].node].shape;
    Value spare = spares ? take_spare(spares, shape.size()) : NOVALUE;
    if (spare != NOVALUE) {  // a donated buffer: a new tensor over it
      Tensor *from = tensor_of(spare), *to = alloc_obj<Tensor>(T_TENSOR);
      to->shape = shape;
      to->size = from->size;
      to->data = from->data;
      to->base = from->base;
      from->data = nullptr;
      from->base = nullptr;
      vals[o] = from_ptr(to);
    } else {
      shapes[ntensors++] = &shape;
    }
  }
  if (ntensors) alloc_tensor_group(ntensors, shapes, tensors);
  for (size_t o = 0, q = 0; o < nout; o++) {
    if (g.outputs[o].as_number) {
      results[o] = &out_numbers[o];
    } else {
      if (vals[o] == NOVALUE) vals[o] = from_ptr(tensors[q++]);
      results[o] = tensor_of(vals[o])->data;
    }
  }
  k->fn(args, results, k->scratch, kernel_par);
  check_interrupt();  // on Ctrl-C kernel_par starts no further chunk: the results may be unfinished
  raise_pending_collective_error();
  for (const KernelLayout::IndexCheck &c : k->layout->index_checks) {
    const double *status = k->scratch + c.offset;
    const Graph &cg = c.graph ? *c.graph : g;  // a loop body's node (kernel_plan.h)
    const GraphNode &n = cg[c.node];
    if (status[0] == 0.0) continue;
    if (n.op == Op::Random) random_key_error(RandomKind(n.axis), status[1]);
    take_index_error(n.index_use, status[1], n.axis, indexed_length(cg, n));
  }
  for (size_t o = 0; o < nout; o++)
    if (g.outputs[o].as_number) vals[o] = make_double(out_numbers[o]);
  return assemble_results(t, vals);
}

}  // namespace

uint8_t kernel_type() {
  static const uint8_t type = [] {
    uint8_t t = register_object_type("kernel");
    TypeHooks &h = g_type_hooks[t];
    h.print = print_kernel;
    h.apply = apply_kernel;
    return t;
  }();
  return type;
}

void register_kernel_type() {
  kernel_type();
  donated_type();
}

Value apply_kernel_reusing(Value kernel, int argc, Value *argv, Value *spares) {
  return apply_kernel_impl(kernel, argc, argv, spares);
}

namespace {

[[noreturn]] void donated_in_call(const char *who, int argc, Value *argv) {
  for (int i = 0; i < argc; i++)
    if (is_donated_tensor(argv[i])) donated_tensor_error(who, fmt::format("argument {}", i + 1), argv[i]);
  throw_errorf("{}: tensor was donated to a kernel and is no longer valid", who);
}

uint8_t donated_type() {
  static const uint8_t type = [] {
    uint8_t t = register_object_type("donated tensor");
    TypeHooks &h = g_type_hooks[t];
    h.print = [](std::string &out, Value v, bool) {
      out += "#<donated tensor ";
      out += shape_string(tensor_of(v)->shape);
      out += '>';
    };
    // The tensor builtins and arithmetic raise rather than say "expected a tensor".
    h.call = [](BuiltinOp builtin, int argc, Value *argv) -> Value {
      donated_in_call(builtin.name(), argc, argv);
    };
    h.arith = [](const char *op, int argc, Value *argv) -> Value { donated_in_call(op, argc, argv); };
    h.arith_rank = 1000;
    return t;
  }();
  return type;
}

}  // namespace

bool is_donated_tensor(Value v) { return has_type(v, donated_type()); }

void donated_tensor_error(const std::string &who, const std::string &where, Value v) {
  std::string shown;
  g_type_hooks[donated_type()].print(shown, v, true);
  throw_errorf("{}: {}: tensor was donated to a kernel and is no longer valid ({})", who, where, shown);
}

void donate_tensor(Value tensor, Value *spares) {
  Tensor *t = tensor_of(tensor);
  t->h.type = donated_type();
  if (t->h.flags & kTensorDataShared) {  // a view or a graph constant still reads it
    t->data = nullptr;
    t->base = nullptr;
  } else {
    *spares = cons(tensor, *spares);
  }
}

void release_spares(Value spares) {
  for (; is_pair(spares); spares = cdr(spares)) {
    tensor_of(car(spares))->data = nullptr;
    tensor_of(car(spares))->base = nullptr;
  }
}

Value make_kernel(const std::string &name, std::unique_ptr<Graph> graph, const ArgSpec *specs, bool grad) {
  // Flat arguments; a grad kernel returns every output as a list, whatever the
  // graph's outputs are (tests build graphs by hand), a forward one its first.
  TreeLayout *layout = flat_layout(graph->num_params, false);
  if (grad) {
    Value skeleton = NIL;
    for (size_t o = 0; o < graph->outputs.size(); o++) skeleton = cons(TRUE_V, skeleton);
    layout->out_skeleton = skeleton;
  }
  return make_kernel(name, std::move(graph), specs, layout);
}

namespace {

// The kernel object around a planned graph; `code` may still be pending.
Value wrap_kernel(const std::string &name, std::unique_ptr<Graph> graph, const ArgSpec *specs,
                  TreeLayout *trees, KernelLayout *layout, double *scratch, void *fn,
                  BackgroundCompile *pending) {
  Kernel *k = alloc_obj<Kernel>(kernel_type());
  char *nm = static_cast<char *>(gc_alloc_atomic(name.size() + 1));
  std::memcpy(nm, name.c_str(), name.size() + 1);
  k->name = nm;
  k->fn = reinterpret_cast<KernelFn>(fn);
  k->layout = layout;
  k->trees = trees;
  int np = graph->num_params;
  k->specs = new ArgSpec[size_t(np > 0 ? np : 1)];
  for (int i = 0; i < np; i++) k->specs[i] = specs[i];
  k->scratch = scratch;
  k->graph = graph.release();
  k->pending = pending;
  k->family = nullptr;
  k->rows = 0;
  k->family_code = nullptr;
  return from_ptr(k);
}

std::string batch_family_key_of(const BatchFamily *f) { return f ? batch_family_key(*f) : std::string(); }

// Drops a family the lowerings cannot give run-time extents (the kernel is
// then compiled for its exact shapes), saying why under KILN_JIT_LOG.
void keep_family_if_lowerable(const std::string &name, const Graph &g, const KernelLayout &layout,
                              std::unique_ptr<BatchFamily> &family) {
  if (!family) return;
  std::string why;
  if (family_lowerable(g, layout, *family, &why)) return;
  if (log_switches())
    jit_message("kiln-jit: " + name + ": no batch family (" + why + "); compiling for the exact shapes");
  family.reset();
}

// Plans `graph` and allocates its scratch area (once here, not per call).
KernelLayout *plan_with_scratch(const std::string &name, const Graph &graph, double **scratch_out) {
  auto *layout = new KernelLayout(plan_kernel(graph));
  size_t bytes = size_t(layout->scratch_doubles > 0 ? layout->scratch_doubles : 8) * sizeof(double);
  auto *scratch = static_cast<double *>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
  if (scratch) advise_huge_pages(scratch, bytes);
  if (!scratch) {
    delete layout;
    throw_errorf("kernel {}: cannot allocate {} bytes of scratch memory", name, bytes);
  }
  *scratch_out = scratch;
  return layout;
}

Value compile_in_background_kernel(const std::string &name, std::unique_ptr<Graph> graph,
                                   const ArgSpec *specs, TreeLayout *trees,
                                   std::unique_ptr<BatchFamily> family) {
  double *scratch = nullptr;
  KernelLayout *layout = plan_with_scratch(name, *graph, &scratch);
  keep_family_if_lowerable(name, *graph, *layout, family);
  std::string key = kernel_key_text(graph_canonical_text(*graph) + batch_family_key_of(family.get()));
  // The graph, plan and family are never freed, so the background thread may
  // read them for as long as it compiles, whatever becomes of the kernel object.
  auto *data = new BuildData{graph.get(), layout, family.get()};
  BackgroundCompile *job = compile_in_background(name, key, build_kernel, data);
  Value k = wrap_kernel(name, std::move(graph), specs, trees, layout, scratch, nullptr, job);
  as<Kernel>(k)->family = family.get();
  as<Kernel>(k)->rows = family ? family->rows : 0;
  family.release();
  return k;
}

}  // namespace

Value make_kernel(const std::string &name, std::unique_ptr<Graph> graph, const ArgSpec *specs,
                  TreeLayout *trees) {
  return make_kernel(name, std::move(graph), specs, trees, nullptr, false);
}

Value make_kernel_in_background(const std::string &name, std::unique_ptr<Graph> graph, const ArgSpec *specs,
                                TreeLayout *trees) {
  return make_kernel(name, std::move(graph), specs, trees, nullptr, true);
}

Value make_kernel(const std::string &name, std::unique_ptr<Graph> graph, const ArgSpec *specs,
                  TreeLayout *trees, std::unique_ptr<BatchFamily> family, bool background) {
  register_kernel_type();
  if (background)
    return compile_in_background_kernel(name, std::move(graph), specs, trees, std::move(family));
  double *scratch = nullptr;
  KernelLayout *layout = plan_with_scratch(name, *graph, &scratch);
  // Owned here until the kernel holds them: compiling may throw (Ctrl-C while
  // waiting for another process's compile of the same kernel).
  std::unique_ptr<KernelLayout> layout_owner(layout);
  std::unique_ptr<double, void (*)(void *)> scratch_owner(scratch, std::free);
  keep_family_if_lowerable(name, *graph, *layout, family);
  std::string key = kernel_key_text(graph_canonical_text(*graph) + batch_family_key_of(family.get()));
  BuildData data{graph.get(), layout, family.get()};
  CompiledCode code = compile_cached(name, key, build_kernel, &data);
  layout_owner.release();
  scratch_owner.release();

  g_last_build =
      KernelBuildInfo{code.fn != nullptr, code.cache_hit, code.in_memory, code.millis, code.failure};
  if (!code.fn) {
    jit_message("warning: kernel " + name + ": libgccjit could not compile it (" + code.failure +
                "); using the graph interpreter");
  }
  Value k = wrap_kernel(name, std::move(graph), specs, trees, layout, scratch, code.fn, nullptr);
  as<Kernel>(k)->family = family.get();
  as<Kernel>(k)->rows = family ? family->rows : 0;
  family.release();
  return k;
}

Value make_family_member(Value family_kernel, std::unique_ptr<Graph> graph, const ArgSpec *specs,
                         TreeLayout *trees, int64_t n) {
  Kernel *f = as<Kernel>(family_kernel);
  if (f->pending) take_over(f);
  Value v = wrap_kernel(f->name, std::move(graph), specs, trees, f->layout, f->scratch,
                        reinterpret_cast<void *>(f->fn), nullptr);
  Kernel *k = as<Kernel>(v);
  k->family = f->family;
  k->rows = n;
  k->family_code = f;
  return v;
}

const BatchFamily *kernel_family(Value kernel) { return as<Kernel>(kernel)->family; }

void jit_log_line(const std::string &text) {
  if (log_switches()) jit_message("kiln-jit: " + text);
}

bool kernel_ready(Value kernel) {
  Kernel *k = as<Kernel>(kernel);
  if (k->pending) take_over(k);
  if (!k->fn && k->family_code) borrow_family_code(k);
  return k->fn != nullptr;
}

void wait_for_kernel(Value kernel) {
  Kernel *k = as<Kernel>(kernel);
  if (k->family_code) {
    wait_for_kernel(from_ptr(k->family_code));
    borrow_family_code(k);
    return;
  }
  if (!k->pending) return;
  wait_for_compile(k->pending);
  take_over(k);
}

}  // namespace kiln

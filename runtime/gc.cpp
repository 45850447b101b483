#include "gc.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kiln {

uint64_t g_gc_stress_every = 0;
uint64_t g_gc_stress_count = 0;

void gc_init() {
  static bool done = false;
  if (done) return;
  done = true;
  // One marker thread: Kiln's scanned heap is small (tensor data, and small
  // tensors whole, are pointer-free), so a second marker only adds a thread
  // wake-up to every collection: 5% of an 8x16 training step. GC_MARKERS=N
  // (the collector's own variable) still overrides it.
  if (!std::getenv("GC_MARKERS")) GC_set_markers_count(1);
  GC_INIT();
  GC_allow_register_threads();
  // Start with a 16 MiB heap: the collector runs after about heap/3 bytes of new
  // allocation, and on its small default heap a training loop (a few KB of
  // result tensors a step) collected every few dozen steps, each collection
  // costing thread wake-ups worth many steps. Measured with
  // benchmarks/tensor_bench.lisp: 8x16->8 x1000 compiled 4.3 ms -> 1.8 ms;
  // 16 MiB also beat 48 MiB for 256x64 elementwise loops (results stay in cache).
  if (!std::getenv("GC_INITIAL_HEAP_SIZE") && GC_get_heap_size() < (16u << 20))
    GC_expand_hp((16u << 20) - GC_get_heap_size());
  // Tensor data are large pointer-free blocks allocated "ignore off page"; the
  // collector's advice about repeated large allocations does not apply to them,
  // so that one warning is dropped. Every other warning still reaches stderr.
  GC_set_warn_proc([](char *msg, GC_word arg) {
    if (std::strstr(msg, "Repeated allocation of very large block")) return;
    std::fprintf(stderr, msg, static_cast<unsigned long>(arg));
  });
  if (const char *s = std::getenv("KILN_GC_STRESS")) {
    long n = std::strtol(s, nullptr, 10);
    if (n > 0) g_gc_stress_every = uint64_t(n);
  }
}

void gc_stress_tick() {
  if (++g_gc_stress_count >= g_gc_stress_every) {
    g_gc_stress_count = 0;
    GC_gcollect();
  }
}

}  // namespace kiln

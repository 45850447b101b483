#include "gc.h"

#include <cstdlib>

namespace kiln {

uint64_t g_gc_stress_every = 0;
uint64_t g_gc_stress_count = 0;

void gc_init() {
  static bool done = false;
  if (done) return;
  done = true;
  GC_INIT();
  GC_allow_register_threads();
  // Tensors are large pointer-free blocks; without this the collector warns
  // about repeated large allocations in training loops.
  GC_set_warn_proc([](char *, GC_word) {});
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

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
  GC_INIT();
  GC_allow_register_threads();
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

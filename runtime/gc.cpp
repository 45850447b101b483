#include "runtime/gc.h"

#include <gc/gc_mark.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "runtime/gc_boot.h"

namespace kiln {

uint64_t g_gc_stress_every = 0;
uint64_t g_gc_stress_count = 0;
// KILN_GC_STRESS's interval while boot runs under KILN_GC_STRESS_SKIP_BOOT=1
// (gc_boot_done starts it).
static uint64_t g_gc_stress_after_boot = 0;
int g_gc_unscanned_segments = 0;

// Shared libraries whose writable data the collector skips. Kiln never leaves
// a pointer to GC memory in them: they see GC memory only for the length of a
// call, while a Kiln frame holds it. Scanning their data was half of every
// collection's marking (docs/performance.md, "Collector"). Anything not
// listed, Kiln's own executable and libgc included, is still scanned.
static const char *const kUnscannedLibraries[] = {
    "/libc.so.",        "/libm.so.",     "/libstdc++.so.", "/libgcc_s.so.", "/libfmt.so.",
    "/libreadline.so.", "/libtinfo.so.", "/libgccjit.so.", "/libisl.so.",   "/libmpfr.so.",
    "/libmpc.so.",      "/libgmp.so.",   "/libz.so.",      "/libzstd.so.",  "/ld-linux"};

static int exclude_library_data(struct dl_phdr_info *info, size_t, void *) {
  const char *name = info->dlpi_name;
  if (!name || !name[0]) return 0;  // the executable
  bool listed = false;
  for (const char *lib : kUnscannedLibraries)
    if (std::strstr(name, lib)) listed = true;
  if (!listed) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W)) continue;
    char *start = reinterpret_cast<char *>(info->dlpi_addr + ph.p_vaddr);
    GC_exclude_static_roots(start, start + ph.p_memsz);
    g_gc_unscanned_segments++;
  }
  return 0;
}

// Tensor data are large pointer-free blocks allocated "ignore off page"; the
// collector's advice about repeated large allocations does not apply to them,
// so that warning is dropped. So is every note the collector makes while
// memory runs out (a heap that cannot grow, a header or scratch block it cannot
// get): an allocation it finally refuses is Kiln's own "out of memory" error
// (gc_out_of_memory), and one it still satisfies needs no report. Every other
// warning still reaches stderr.
static bool is_dropped_gc_warning(const char *msg) {
  static const char *const kDropped[] = {"Repeated allocation of very large block",
                                         "Failed to expand heap",
                                         "Out of Memory",  // "...Trying to continue", "...Returning NULL"
                                         "Out of memory",  // "- trying to allocate requested amount"
                                         "Header allocation failed",
                                         "Failed to grow mark stack"};
  for (const char *dropped : kDropped)
    if (std::strstr(msg, dropped)) return true;
  return false;
}

void gc_warning(char *msg, GC_word arg) {
  if (is_dropped_gc_warning(msg)) return;
  std::fprintf(stderr, msg, static_cast<unsigned long>(arg));
}

static const volatile std::sig_atomic_t *g_stop_flag = nullptr;
static int stop_collecting_when_flagged() { return g_stop_flag && *g_stop_flag; }

void gc_stop_collections_when(const volatile std::sig_atomic_t *flag) {
  g_stop_flag = flag;
  GC_set_stop_func(stop_collecting_when_flagged);
}

// The collector's object kind for gc_alloc_unzeroed: scanned like GC_MALLOC's
// (a length descriptor covering the whole object), new objects left as found.
static int g_unzeroed_kind = -1;

void gc_init() {
  static bool done = false;
  if (done) return;
  done = true;
  // One marker thread: Kiln's scanned heap is small (tensor data, and small
  // tensors whole, are pointer-free), so a second marker only adds a thread
  // wake-up to every collection (docs/performance.md, "Collector").
  // GC_MARKERS=N (the collector's own variable) still overrides it.
  if (!std::getenv("GC_MARKERS")) GC_set_markers_count(1);
  GC_INIT();
  GC_allow_register_threads();
  dl_iterate_phdr(exclude_library_data, nullptr);
  // Start with an 8 MiB heap: on the collector's small default heap a training
  // loop collected every few dozen steps; 8 MiB measured better than 4 or 16
  // (docs/performance.md, "Collector").
  constexpr size_t kStartingHeap = 8u << 20;
  if (!std::getenv("GC_INITIAL_HEAP_SIZE") && GC_get_heap_size() < kStartingHeap)
    GC_expand_hp(kStartingHeap - GC_get_heap_size());
  GC_set_warn_proc(gc_warning);
  g_unzeroed_kind = int(GC_new_kind(GC_new_free_list(), GC_DS_LENGTH, 1, 0));
  if (const char *s = std::getenv("KILN_GC_STRESS")) {
    long n = std::strtol(s, nullptr, 10);
    const char *skip = std::getenv("KILN_GC_STRESS_SKIP_BOOT");
    bool after_boot = skip && *skip && std::strcmp(skip, "0") != 0;
    if (n > 0) (after_boot ? g_gc_stress_after_boot : g_gc_stress_every) = uint64_t(n);
  }
}

void gc_boot_done() {
  if (g_gc_stress_after_boot) {
    g_gc_stress_every = g_gc_stress_after_boot;
    g_gc_stress_after_boot = 0;
  }
}

void *gc_alloc_unzeroed(size_t n) {
  if (g_gc_stress_every) gc_stress_tick();
  void *p = gc_checked(GC_generic_malloc(n, g_unzeroed_kind), n);
  // The block may be larger than asked for; the caller fills only n bytes, and
  // the collector scans all of it: the rest would keep whatever object lived
  // there before, and its stale pointers would hold that object's referents.
  size_t size = GC_size(p);
  if (size > n) std::memset(static_cast<char *>(p) + n, 0, size - n);
  return p;
}

void gc_stress_tick() {
  if (++g_gc_stress_count >= g_gc_stress_every) {
    g_gc_stress_count = 0;
    GC_gcollect();
  }
}

}  // namespace kiln

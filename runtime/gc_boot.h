// gc_boot.h — where boot ends, for the collector's stress mode.
//
// Invariant: init_kiln calls gc_boot_done() once, after the embedded Lisp
// libraries are loaded. KILN_GC_STRESS=N forces a full collection every N
// allocations (gc.h); with KILN_GC_STRESS_SKIP_BOOT=1 those collections start
// only here: boot is the same in every run and costs ~2.7 CPU s under a
// collection per allocation, so `make gc-stress` checks it once, not per test
// (docs/testing.md, "GC stress").
#pragma once

namespace kiln {

// A stress run that KILN_GC_STRESS_SKIP_BOOT deferred starts now.
void gc_boot_done();

}  // namespace kiln

// kernel_cache.h — the on-disk cache of compiled kernels (SPEC §9).
//
// Invariants:
//   * Content-addressed: an entry's file name is the hash of its key text, and
//     the key text covers everything the machine code depends on: the graph's
//     canonical text and shapes, the compiler flags, the CPU level, the libgccjit
//     version and kKernelAbi. Change any of them and the file name changes.
//   * Every entry exports kiln_kernel_abi() (== kKernelAbi) and kiln_kernel_key()
//     (the full key text); an entry is used only when both match after dlopen,
//     so a damaged, truncated, foreign or colliding file is never run: it is
//     recompiled and replaced.
//   * Entries are written under a unique temporary name in the same directory
//     and renamed into place, so a reader never sees a half-written file.
//   * Directory: $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln/kernels, else
//     ~/.cache/kiln/kernels; KILN_CACHE_DIR=off disables the cache.
#pragma once
#include <libgccjit.h>

#include <string>

namespace kiln {

// Bump when the generated function's signature, the layout contract OR the
// code any lowering generates changes: cached entries of other versions are then
// never used (the version is part of the key). Kiln's version is in the key too.
constexpr int kKernelAbi = 9;

// "" when the cache is disabled.
std::string kernel_cache_dir();

// The key text of a kernel (graph canonical text + flags + CPU level + versions)
// and its 32-hex-digit hash (two independent 64-bit FNV-1a variants).
std::string kernel_key_text(const std::string &canonical_graph);
std::string kernel_key_hash(const std::string &key_text);

// Creates `dir` if needed and checks a file can be created in it.
bool kernel_cache_writable(const std::string &dir);

// Adds the two exported identification functions to `ctx`.
void emit_kernel_identity(gcc_jit_context *ctx, const std::string &key_text);

// How a kernel's machine code was obtained.
struct CompiledCode {
  void *fn = nullptr;  // the kernel entry point, nullptr on failure
  bool cache_hit = false;
  bool in_memory = false;  // compiled without the cache (off or unwritable)
  std::string failure;     // why compiling failed (when fn == nullptr)
  std::string path;        // the cache file used or written
  double millis = 0.0;     // time spent loading or compiling
};

// Looks the key up in the cache; on a miss (or a bad entry) calls build(ctx)
// on a fresh context to emit the kernel, compiles it to the cache (or in
// memory when the cache is off or not writable: one warning per process), and
// loads it. `name` is used for KILN_JIT_DUMP file names and KILN_JIT_LOG lines.
CompiledCode compile_cached(const std::string &name, const std::string &key_text,
                            void (*build)(gcc_jit_context *ctx, void *data), void *data);

// Resets the once-per-process read-only warning (tests).
void reset_cache_warning_for_tests();

}  // namespace kiln

// kernel_cache.h — the on-disk cache of compiled kernels (docs/jit.md).
//
// Invariants:
//   * Content-addressed: an entry's file name is the hash of its key text, and
//     the key text covers everything the machine code depends on: the graph's
//     canonical text and shapes, the compiler flags, the CPU level, the libgccjit
//     version and kKernelAbi. Change any of them and the file name changes.
//   * The cache never runs code another user could have written. The directory
//     is created 0700 and used only when it belongs to the current user and is
//     not writable by group or others; it is opened once and every entry is
//     reached relative to that descriptor. An entry is opened without following
//     links, and only a regular file of the current user that group and others
//     cannot write, whose bytes carry a trailer (magic, kKernelAbi, sizes, the
//     full key, a checksum) matching its size and this key, is loaded, through
//     /proc/self/fd/N of the descriptor that was checked. Nothing is dlopen'ed
//     (no constructor runs) before those checks.
//   * A damaged entry (truncated, another key, bad checksum, unreadable) is
//     recompiled and replaced; an unsafe one (a link, another owner, writable by
//     others) or an unsafe directory is left alone and the kernel is compiled in
//     memory, with one warning per process.
//   * Entries are written under a temporary name unique to the process (O_EXCL)
//     in the same directory, flushed (fsync) and renamed into place, so a reader
//     never sees a half-written file.
//   * Processes compiling the same kernel at once compile it once: the compile
//     holds a lock (an OFD lock on one byte, chosen by the hash, of the
//     directory's `lock` file); the others wait, then find and load the entry.
//   * Directory: $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln/kernels, else
//     ~/.cache/kiln/kernels; KILN_CACHE_DIR=off disables the cache.
#pragma once
#include <libgccjit.h>

#include <cstdint>
#include <string>

namespace kiln {

// Bump when the generated function's signature, the layout contract, the
// entry file format OR the code any lowering generates changes: cached entries
// of other versions are then never used (the version is part of the key and of
// each entry's trailer). Kiln's version is in the key too.
// 16: short, wide matmuls split by columns, right-operand transposes read in
// place, large element-wise runs split over par.
constexpr int kKernelAbi = 16;

// "" when the cache is disabled.
std::string kernel_cache_dir();

// The key text of a kernel (graph canonical text + flags + CPU level + versions)
// and its 32-hex-digit hash (two independent 64-bit FNV-1a variants).
std::string kernel_key_text(const std::string &canonical_graph);
std::string kernel_key_hash(const std::string &key_text);

// "" when kernels can be cached in `dir` (created 0700 if missing; safe, as
// above; a file can be created in it), else why not (for --jit-check).
std::string kernel_cache_problem(const std::string &dir);

// Opens the cache directory, creating missing components with mode 0700, and
// checks it belongs to the current user and is not writable by group or others.
// Returns the descriptor, or -1 with `why`; `*unsafe` tells an existing but
// unsafe directory from one that cannot be created or opened.
int open_cache_dir(const std::string &dir, std::string &why, bool *unsafe);

// Entry file format: the shared object's bytes, then the key text, then a
// kEntryTrailerSize-byte trailer: "KILNKERN", kKernelAbi (u32), 0 (u32), the
// shared object's size (u64), the key's size (u64), and FNV-1a 64 over the
// shared object and the key (u64); integers little-endian.
constexpr size_t kEntryTrailerSize = 40;
std::string cache_entry_suffix(const std::string &shared_object, const std::string &key_text);

enum class EntryState { Missing, Valid, Damaged, Unsafe };

// Checks an open entry: Unsafe unless it is a regular file of the current user
// that group and others cannot write; Damaged unless its size, trailer, key and
// checksum match `key_text`; else Valid. `why` says what was wrong.
EntryState check_cache_entry(int fd, const std::string &key_text, std::string &why);

// Opens `file` in the directory `dirfd` without following links (a link is
// Unsafe, an absent file Missing, one that cannot be opened Damaged) and
// checks it. On Valid, `*fd_out` is the open descriptor (the caller closes it).
EntryState open_cache_entry(int dirfd, const std::string &file, const std::string &key_text, int *fd_out,
                            std::string &why);

// Adds the two exported identification functions to `ctx`; checked again
// after loading (a second line of defence behind the trailer).
void emit_kernel_identity(gcc_jit_context *ctx, const std::string &key_text);

// How a kernel's machine code was obtained.
struct CompiledCode {
  void *fn = nullptr;  // the kernel entry point, nullptr on failure
  bool cache_hit = false;
  bool in_memory = false;  // compiled without the cache (off, unwritable or unsafe)
  std::string failure;     // why compiling failed (when fn == nullptr)
  std::string path;        // the cache file used or written
  double millis = 0.0;     // time spent loading or compiling
};

// Looks the key up in the cache; on a miss (or a damaged entry) takes the
// kernel's lock, looks again, and otherwise calls build(ctx) on a fresh
// context to emit the kernel, compiles it into the cache (or in memory when
// the cache is off, not writable or not safe: one warning per process), and
// loads it. `name` is used for KILN_JIT_DUMP file names and KILN_JIT_LOG lines.
CompiledCode compile_cached(const std::string &name, const std::string &key_text,
                            void (*build)(gcc_jit_context *ctx, void *data), void *data);

// Resets the once-per-process cache warning (tests).
void reset_cache_warning_for_tests();

}  // namespace kiln

// kernel_cache.cpp — key, directory, atomic write, identity check (kernel_cache.h).
#include "kernel_cache.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "jit_context.h"

namespace kiln {

std::string kernel_cache_dir() {
  if (const char *d = std::getenv("KILN_CACHE_DIR")) {
    if (std::strcmp(d, "off") == 0) return "";
    if (*d) return d;
  }
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/kiln/kernels";
  if (const char *h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/kiln/kernels";
  return "";
}

std::string kernel_key_text(const std::string &canonical_graph) {
  std::string k = "kiln-kernel abi " + std::to_string(kKernelAbi) + " kiln " KILN_VERSION "\n";
  k += "libgccjit " + jit_version_string() + "\n";
  k += "cpu-level " + std::to_string(jit_cpu_level()) + " vector " + std::to_string(jit_vector_doubles()) +
       "\n";
  k += "flags";
  for (const std::string &f : jit_flags()) k += " " + f;
  for (const std::string &f : jit_link_flags()) k += " " + f;
  k += "\n";
  k += canonical_graph;
  return k;
}

static uint64_t fnv1a(const std::string &s, uint64_t h) {
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string kernel_key_hash(const std::string &key_text) {
  uint64_t a = fnv1a(key_text, 0xcbf29ce484222325ull);
  // A second, independent walk (different basis, length folded in) so that two
  // keys share a name only if both 64-bit hashes collide.
  uint64_t b = fnv1a(key_text, 0x84222325cbf29ce4ull ^ (uint64_t(key_text.size()) * 0x9e3779b97f4a7c15ull));
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return buf;
}

void emit_kernel_identity(gcc_jit_context *ctx, const std::string &key_text) {
  gcc_jit_type *t_int = gcc_jit_context_get_type(ctx, GCC_JIT_TYPE_INT);
  gcc_jit_type *t_str = gcc_jit_context_get_type(ctx, GCC_JIT_TYPE_CONST_CHAR_PTR);
  gcc_jit_function *abi = gcc_jit_context_new_function(ctx, nullptr, GCC_JIT_FUNCTION_EXPORTED, t_int,
                                                       "kiln_kernel_abi", 0, nullptr, 0);
  gcc_jit_block *b = gcc_jit_function_new_block(abi, "entry");
  gcc_jit_block_end_with_return(b, nullptr, gcc_jit_context_new_rvalue_from_int(ctx, t_int, kKernelAbi));
  gcc_jit_function *key = gcc_jit_context_new_function(ctx, nullptr, GCC_JIT_FUNCTION_EXPORTED, t_str,
                                                       "kiln_kernel_key", 0, nullptr, 0);
  b = gcc_jit_function_new_block(key, "entry");
  gcc_jit_block_end_with_return(b, nullptr, gcc_jit_context_new_string_literal(ctx, key_text.c_str()));
}

namespace {

bool g_readonly_warned = false;

double millis_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

bool log_enabled() {
  const char *s = std::getenv("KILN_JIT_LOG");
  return s && *s && std::strcmp(s, "0") != 0;
}

void log_line(const std::string &text) {
  if (!log_enabled()) return;
  jit_message("kiln-jit: " + text);
}

// mkdir -p; true when `dir` exists as a directory afterwards.
bool make_dirs(const std::string &dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode);
  size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0 && !make_dirs(dir.substr(0, slash))) return false;
  return mkdir(dir.c_str(), 0755) == 0 || (stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode));
}

using AbiFn = int (*)();
using KeyFn = const char *(*)();

// dlopens `path` and returns the kernel entry when the file is a complete kernel
// for exactly this key; otherwise closes it and explains why in `why`.
void *load_entry(const std::string &path, const std::string &key_text, std::string &why) {
  void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    why = e ? e : "dlopen failed";
    return nullptr;
  }
  auto abi = reinterpret_cast<AbiFn>(dlsym(h, "kiln_kernel_abi"));
  auto key = reinterpret_cast<KeyFn>(dlsym(h, "kiln_kernel_key"));
  void *fn = dlsym(h, "kiln_kernel");
  if (!abi || !key || !fn) {
    why = "not a Kiln kernel";
  } else if (abi() != kKernelAbi) {
    why = "kernel ABI " + std::to_string(abi()) + ", expected " + std::to_string(kKernelAbi);
  } else if (key_text != key()) {
    why = "compiled for another key";
  } else {
    return fn;
  }
  dlclose(h);
  return nullptr;
}

void dump_source(gcc_jit_context *ctx, const std::string &name, const std::string &hash) {
  const char *dir = std::getenv("KILN_JIT_DUMP");
  if (!dir || !*dir || !make_dirs(dir)) return;
  std::string safe;
  for (char ch : name)
    safe += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_') ? ch : '_';
  std::string path = std::string(dir) + "/" + safe + "-" + hash.substr(0, 16) + ".c";
  gcc_jit_context_dump_to_file(ctx, path.c_str(), 0);
}

}  // namespace

bool kernel_cache_writable(const std::string &dir) {
  if (!make_dirs(dir)) return false;
  std::string probe = dir + "/.probe." + std::to_string(getpid());
  int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return false;
  close(fd);
  unlink(probe.c_str());
  return true;
}

void reset_cache_warning_for_tests() { g_readonly_warned = false; }

CompiledCode compile_cached(const std::string &name, const std::string &key_text,
                            void (*build)(gcc_jit_context *ctx, void *data), void *data) {
  auto t0 = std::chrono::steady_clock::now();
  CompiledCode out;
  std::string hash = kernel_key_hash(key_text);
  std::string dir = kernel_cache_dir();
  std::string path;
  if (!dir.empty()) {
    path = dir + "/" + hash + ".so";
    if (access(path.c_str(), F_OK) == 0) {
      std::string why;
      if (void *fn = load_entry(path, key_text, why)) {
        if (std::getenv("KILN_JIT_DUMP")) {  // the source is wanted even when the code is cached
          gcc_jit_context *ctx = jit_new_context();
          build(ctx, data);
          emit_kernel_identity(ctx, key_text);
          dump_source(ctx, name, hash);
          gcc_jit_context_release(ctx);
        }
        out.fn = fn;
        out.cache_hit = true;
        out.path = path;
        out.millis = millis_since(t0);
        log_line(name + ": cache hit " + hash + " (" + fmt::format("{:.1f}", out.millis) + " ms)");
        return out;
      }
      log_line(name + ": cache entry " + hash + " is damaged or foreign (" + why + "); recompiling");
    }
  }

  // A miss: build the kernel in a fresh context.
  gcc_jit_context *ctx = jit_new_context();
  build(ctx, data);
  emit_kernel_identity(ctx, key_text);
  // libgccjit records misuse of its API (a type mismatch, an unterminated block)
  // as the context's first error; report it as such rather than as a compile failure.
  if (const char *err = gcc_jit_context_get_first_error(ctx)) {
    out.failure = std::string("code generation error: ") + err;
    gcc_jit_context_release(ctx);
    out.millis = millis_since(t0);
    log_line(name + ": compile failed (" + out.failure + ")");
    return out;
  }
  dump_source(ctx, name, hash);

  std::string tmp;
  if (!dir.empty()) {
    if (make_dirs(dir)) {
      tmp = dir + "/." + hash + ".tmp." + std::to_string(getpid()) + "." +
            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() & 0xffffff) + ".so";
      int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
      if (fd < 0) tmp.clear();
      else close(fd);
    }
    if (tmp.empty() && !g_readonly_warned) {
      g_readonly_warned = true;
      jit_message("warning: kernel cache directory " + dir + " is not writable; compiling kernels in memory");
    }
  }

  if (!tmp.empty()) {
    StderrCapture cap;
    gcc_jit_context_compile_to_file(ctx, GCC_JIT_OUTPUT_KIND_DYNAMIC_LIBRARY, tmp.c_str());
    std::string printed = cap.end();
    const char *err = gcc_jit_context_get_first_error(ctx);
    if (err) {
      out.failure = jit_failure_reason(ctx, printed);
      unlink(tmp.c_str());
    } else if (rename(tmp.c_str(), path.c_str()) != 0) {
      out.failure = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
      unlink(tmp.c_str());
    } else {
      std::string why;
      out.fn = load_entry(path, key_text, why);
      if (!out.fn) out.failure = "the compiled kernel does not load: " + why;
      out.path = path;
    }
  } else {
    out.in_memory = true;
    StderrCapture cap;
    gcc_jit_result *res = gcc_jit_context_compile(ctx);
    std::string printed = cap.end();
    if (!res) {
      out.failure = jit_failure_reason(ctx, printed);
    } else {
      // The result stays loaded for the life of the process: kernels are not freed.
      out.fn = gcc_jit_result_get_code(res, "kiln_kernel");
      if (!out.fn) out.failure = "the compiled kernel has no entry point";
    }
  }
  gcc_jit_context_release(ctx);
  out.millis = millis_since(t0);
  if (out.fn)
    log_line(name + (out.in_memory ? ": compiled in memory " : ": cache miss ") + hash + ", compiled in " +
             fmt::format("{:.1f}", out.millis) + " ms");
  else log_line(name + ": compile failed (" + out.failure + ")");
  return out;
}

}  // namespace kiln

// npy.cpp — (load-npy PATH) and (save-npy PATH T), NumPy's .npy format
// (docs/data-files.md; the header in npy_header.h).
//
// Invariant: nothing read from the file is trusted before it is checked
// against the file's size: the header length before the header is read, the
// shape times the item size (overflow-checked) against the bytes after the
// header, exactly, before the tensor is allocated. So a damaged file costs at
// most its own size in memory and raises an error naming the file and what is
// wrong, never a crash.
#include <fmt/format.h>
#include <sys/stat.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/eval.h"
#include "runtime/tensor.h"
#include "stdlib/builtins.h"
#include "stdlib/file_write.h"
#include "stdlib/npy_array.h"
#include "stdlib/npy_header.h"
#include "stdlib/port_args.h"
#include "stdlib/tensor_args.h"

namespace kiln {
namespace {

static_assert(std::endian::native == std::endian::little,
              "load-npy and save-npy assume a little-endian host");

constexpr size_t kMagicLen = 6;
constexpr size_t kMaxHeader = 1 << 20;  // NumPy itself refuses headers past 10000 characters
constexpr size_t kNpyChunk = 1 << 20;   // bytes read or written between polls for Ctrl-C

struct File {
  FILE *f = nullptr;
  ~File() {
    if (f) std::fclose(f);
  }
};

struct Reading {
  std::string path;
  File file;
  uint64_t size = 0;

  [[noreturn]] void bad(std::string_view what) const { throw_errorf("load-npy: {}: {}", path, what); }
  void read(void *buf, size_t n) {
    if (std::fread(buf, 1, n, file.f) != n) {
      if (std::ferror(file.f))
        file_error(fmt::format("load-npy: cannot read {}: {}", path, std::strerror(errno)));
      bad("the file ended while it was being read");  // it shrank after fstat
    }
  }
};

inline uint16_t swap_bytes(uint16_t u) { return __builtin_bswap16(u); }
inline uint32_t swap_bytes(uint32_t u) { return __builtin_bswap32(u); }
inline uint64_t swap_bytes(uint64_t u) { return __builtin_bswap64(u); }

template <class U> U load_unsigned(const unsigned char *p, bool swap) {
  U u;
  std::memcpy(&u, p, sizeof u);
  return swap ? swap_bytes(u) : u;
}

// `n` elements of the header's dtype at `p` as doubles into `out`.
void convert(const NpyHeader &h, const unsigned char *p, size_t n, double *out) {
  bool sw = h.big_endian;
  for (size_t i = 0; i < n; i++, p += h.itemsize) {
    double d;
    switch (h.kind) {
    case 'f':
      if (h.itemsize == 8) d = std::bit_cast<double>(load_unsigned<uint64_t>(p, sw));
      else d = double(std::bit_cast<float>(load_unsigned<uint32_t>(p, sw)));
      break;
    case 'i':
      switch (h.itemsize) {
      case 1: d = double(int8_t(p[0])); break;
      case 2: d = double(int16_t(load_unsigned<uint16_t>(p, sw))); break;
      case 4: d = double(int32_t(load_unsigned<uint32_t>(p, sw))); break;
      default: d = double(int64_t(load_unsigned<uint64_t>(p, sw))); break;
      }
      break;
    case 'u':
      switch (h.itemsize) {
      case 1: d = double(p[0]); break;
      case 2: d = double(load_unsigned<uint16_t>(p, sw)); break;
      case 4: d = double(load_unsigned<uint32_t>(p, sw)); break;
      default: d = double(load_unsigned<uint64_t>(p, sw)); break;
      }
      break;
    default: d = p[0] != 0 ? 1.0 : 0.0; break;  // bool: NumPy reads any nonzero byte as True
    }
    out[i] = d;
  }
}

// The magic, version and header length; returns the header's dict text and
// sets `header_at` to its offset, leaving the file at the first data byte.
std::string read_preamble(Reading &r, size_t &header_at) {
  unsigned char pre[12];
  size_t have = size_t(std::min<uint64_t>(r.size, 8));
  r.read(pre, have);
  if (have < kMagicLen || std::memcmp(pre, "\x93NUMPY", kMagicLen) != 0)
    r.bad("not a .npy file (it does not start with \\x93NUMPY)");
  if (have < 8) r.bad(fmt::format("truncated: the file ends at byte {}, inside the version", have));
  int major = pre[6], minor = pre[7];
  if ((major < 1 || major > 3) || minor != 0)
    r.bad(fmt::format("unsupported .npy format version {}.{} (Kiln reads 1.0, 2.0 and 3.0)", major, minor));
  header_at = major == 1 ? 10 : 12;
  if (r.size < header_at)
    r.bad(fmt::format("truncated: the file ends at byte {}, inside the header length", r.size));
  r.read(pre + 8, header_at - 8);
  uint64_t len = pre[8] | uint64_t(pre[9]) << 8;
  if (major > 1) len |= uint64_t(pre[10]) << 16 | uint64_t(pre[11]) << 24;
  if (len > kMaxHeader) r.bad(fmt::format("header length {} is more than Kiln reads ({})", len, kMaxHeader));
  if (header_at + len > r.size)
    r.bad(fmt::format("header length {} goes past the end of the file ({} bytes)", len, r.size));
  std::string text(len, '\0');
  r.read(text.data(), len);
  return text;
}

// A tensor of `dims` filled from column-major `src`: the element at
// (i0, ..., ik) comes from i0 + d0*(i1 + d1*(...)).
Tensor *from_fortran_order(const Tensor *src) {
  const Shape &s = src->shape;
  Tensor *t = alloc_tensor(s);
  int64_t stride[kMaxRank];  // row-major strides of the result
  int64_t step = 1;
  for (int k = s.rank - 1; k >= 0; k--) {
    stride[k] = step;
    step *= s.dim[k];
  }
  int64_t idx[kMaxRank] = {};
  int64_t c = 0;  // row-major position of idx
  for (int64_t f = 0; f < src->size; f++) {
    if ((f & 0xfffff) == 0) check_interrupt();
    t->data[c] = src->data[f];
    // advance idx in column-major order: the first index fastest
    for (int k = 0; k < s.rank; k++) {
      if (++idx[k] < s.dim[k]) {
        c += stride[k];
        break;
      }
      c -= (s.dim[k] - 1) * stride[k];
      idx[k] = 0;
    }
  }
  return t;
}

}  // namespace

Value npy_tensor_from_bytes(const char *who, const std::string &where, const unsigned char *p, uint64_t n) {
  auto bad = [&](std::string_view what) { throw_errorf("{}: {}: {}", who, where, what); };
  if (n < kMagicLen || std::memcmp(p, "\x93NUMPY", kMagicLen) != 0)
    bad("not a .npy array (it does not start with \\x93NUMPY)");
  if (n < 8) bad(fmt::format("truncated: the array ends at byte {}, inside the version", n));
  int major = p[6], minor = p[7];
  if ((major < 1 || major > 3) || minor != 0)
    bad(fmt::format("unsupported .npy format version {}.{} (Kiln reads 1.0, 2.0 and 3.0)", major, minor));
  size_t header_at = major == 1 ? 10 : 12;
  if (n < header_at) bad(fmt::format("truncated: the array ends at byte {}, inside the header length", n));
  uint64_t len = p[8] | uint64_t(p[9]) << 8;
  if (major > 1) len |= uint64_t(p[10]) << 16 | uint64_t(p[11]) << 24;
  if (header_at + len > n)
    bad(fmt::format("header length {} goes past the end of the array ({} bytes)", len, n));
  std::string_view text(reinterpret_cast<const char *>(p + header_at), len);
  NpyHeader h;
  std::string why = parse_npy_header(text, header_at, h);
  if (!why.empty()) bad(why);
  uint64_t have = n - header_at - len;
  uint64_t count = 1;
  bool overflow = false;
  for (int k = 0; k < h.shape.rank; k++)
    overflow |= __builtin_mul_overflow(count, uint64_t(h.shape.dim[k]), &count);
  uint64_t need;
  overflow |= __builtin_mul_overflow(count, uint64_t(h.itemsize), &need);
  if (overflow || need != have)
    bad(fmt::format(
        "header field 'shape' {} of '{}' needs {} bytes of data, the array has {} after the header",
        h.shape_text, h.descr, overflow ? "more than 2^64" : std::to_string(need), have));
  Tensor *t = alloc_tensor(h.shape);
  const unsigned char *data = p + header_at + len;
  size_t per_chunk = kNpyChunk / size_t(h.itemsize);
  for (uint64_t done = 0; done < count;) {
    check_interrupt();
    size_t k = size_t(std::min<uint64_t>(per_chunk, count - done));
    convert(h, data + done * uint64_t(h.itemsize), k, t->data + done);
    done += k;
  }
  if (h.fortran_order && h.shape.rank > 1) t = from_fortran_order(t);
  return from_ptr(t);
}

namespace {

Value b_load_npy(int, Value *argv) {
  Reading r;
  r.path = arg_path("load-npy", 1, argv[0]);
  r.file.f = std::fopen(r.path.c_str(), "rb");
  if (!r.file.f) file_error(fmt::format("load-npy: cannot open {}: {}", r.path, std::strerror(errno)));
  struct stat st;
  if (fstat(fileno(r.file.f), &st) != 0)
    file_error(fmt::format("load-npy: cannot read {}: {}", r.path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode))
    file_error(fmt::format("load-npy: cannot read {}: {}", r.path, std::strerror(EISDIR)));
  if (!S_ISREG(st.st_mode)) r.bad("not a regular file (load-npy needs the file's size)");
  r.size = uint64_t(st.st_size);
  size_t header_at = 0;
  std::string text = read_preamble(r, header_at);
  NpyHeader h;
  std::string why = parse_npy_header(text, header_at, h);
  if (!why.empty()) r.bad(why);
  uint64_t data_at = header_at + text.size();
  uint64_t have = r.size - data_at;
  uint64_t count = 1;
  bool overflow = false;
  for (int k = 0; k < h.shape.rank; k++)
    overflow |= __builtin_mul_overflow(count, uint64_t(h.shape.dim[k]), &count);
  uint64_t need;
  overflow |= __builtin_mul_overflow(count, uint64_t(h.itemsize), &need);
  if (overflow || need != have)
    r.bad(fmt::format(
        "header field 'shape' {} of '{}' needs {} bytes of data, the file has {} after the header",
        h.shape_text, h.descr, overflow ? "more than 2^64" : std::to_string(need), have));
  Tensor *t = alloc_tensor(h.shape);
  std::vector<unsigned char> buf(std::min<uint64_t>(need, kNpyChunk));
  size_t per_chunk = buf.size() / size_t(h.itemsize);
  for (uint64_t done = 0; done < count;) {
    check_interrupt();
    size_t n = size_t(std::min<uint64_t>(per_chunk, count - done));
    r.read(buf.data(), n * size_t(h.itemsize));
    convert(h, buf.data(), n, t->data + done);
    done += n;
  }
  if (h.fortran_order && h.shape.rank > 1) t = from_fortran_order(t);
  return from_ptr(t);
}

Value b_save_npy(int, Value *argv) {
  std::string path = arg_path("save-npy", 1, argv[0]);
  Tensor *t = arg_tensor("save-npy", 2, argv[1]);
  std::string header = npy_header_f8(t->shape);
  const double *d = t->data;
  size_t size = size_t(t->size);
  write_file_atomically("save-npy", path, [&header, d, size](FILE *f) {
    if (std::fwrite(header.data(), 1, header.size(), f) != header.size()) return false;
    constexpr size_t per_chunk = kNpyChunk / sizeof(double);
    for (size_t done = 0; done < size; done += per_chunk) {
      check_interrupt();
      size_t n = std::min(per_chunk, size - done);
      if (std::fwrite(d + done, sizeof(double), n, f) != n) return false;
    }
    return true;
  });
  return UNSPEC;
}

BuiltinRegistrar npy_registrar([] {
  defbuiltin("load-npy", 1, 1, b_load_npy,
             "(load-npy PATH): a tensor of a NumPy .npy file (float64, float32, int64 to int8, uint64 to "
             "uint8 or bool, either byte order, C or Fortran order; format versions 1.0 to 3.0).");
  defbuiltin("save-npy", 2, 2, b_save_npy,
             "(save-npy PATH T): tensor T to PATH as a NumPy .npy file (float64, C order, version 1.0), "
             "byte for byte what numpy.save writes.");
});

}  // namespace
}  // namespace kiln

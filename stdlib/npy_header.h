// npy_header.h — the header of NumPy's .npy format (docs/data-files.md).
//
// A .npy file is the magic bytes \x93NUMPY, a major and a minor version byte,
// the header's length (2 bytes little-endian in version 1.0, 4 in 2.0 and
// 3.0), the header, and the array's bytes. The header is a Python dict literal
// with exactly the keys 'descr' (a dtype string such as '<f8'), 'fortran_order'
// (True or False) and 'shape' (a tuple of integers), padded with spaces and a
// newline. Invariant: the parser reads only that subset of Python, checks
// every value it returns (a supported dtype, a shape Kiln can hold) and never
// recurses deeper than kMaxNesting, so any bytes at all give a header or a
// message.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/tensor_ops.h"

namespace kiln {

struct NpyHeader {
  char kind = 'f';   // 'f' float, 'i' signed, 'u' unsigned, 'b' bool
  int itemsize = 8;  // bytes per element
  bool big_endian = false;
  bool fortran_order = false;
  Shape shape;             // every dimension >= 1, rank <= kMaxRank
  std::string descr;       // as the file spells it, for messages
  std::string shape_text;  // the shape as the file spells it, for messages
};

// Parses the dict text of a header that starts at byte `offset` of the file;
// "" on success, otherwise what is wrong, naming the header field where there
// is one ("header field 'descr': unsupported dtype '<c16' (complex numbers)").
std::string parse_npy_header(std::string_view text, size_t offset, NpyHeader &out);

// The complete header NumPy 1.24's np.save writes for a float64 C-order array
// of shape `s`: magic, version 1.0, length, the dict in sorted key order, the
// spare spaces np.save leaves for growing the first dimension, and padding to
// a multiple of 64 bytes ending in a newline.
std::string npy_header_f8(const Shape &s);

}  // namespace kiln

// Unit tests for the data-file internals (docs/data-files.md): the .npy header
// parser and writer (stdlib/npy_header.h) and the seeded shuffle (stdlib/shuffle.h).
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "stdlib/npy_header.h"
#include "stdlib/shuffle.h"

using namespace kiln;

namespace {
std::string parse(std::string_view text, NpyHeader &h) { return parse_npy_header(text, 10, h); }
}  // namespace

TEST_CASE("parse_npy_header: what NumPy writes", "[npy]") {
  NpyHeader h;
  REQUIRE(parse("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }    \n", h) == "");
  CHECK(h.kind == 'f');
  CHECK(h.itemsize == 8);
  CHECK_FALSE(h.big_endian);
  CHECK_FALSE(h.fortran_order);
  CHECK(h.shape.rank == 2);
  CHECK(h.shape.dim[0] == 2);
  CHECK(h.shape.dim[1] == 3);
  REQUIRE(parse("{\"shape\":(),\"fortran_order\":True,\"descr\":\">i4\"}", h) == "");
  CHECK(h.shape.rank == 0);
  CHECK(h.big_endian);
  CHECK(h.fortran_order);
  REQUIRE(parse("{'descr': '|u1', 'fortran_order': False, 'shape': (7,)}", h) == "");
  CHECK(h.shape.rank == 1);
  CHECK(h.itemsize == 1);
  CHECK_FALSE(h.big_endian);  // a one-byte type has no byte order
  REQUIRE(parse("{'descr': '>b1', 'fortran_order': False, 'shape': (3L, 4L)}", h) == "");
  CHECK(h.shape.dim[1] == 4);
}

TEST_CASE("parse_npy_header: errors name the byte or the field", "[npy]") {
  NpyHeader h;
  CHECK(parse("", h) == "malformed header at byte 10: expected '{' (the header is a Python dict)");
  CHECK(parse("{'descr': '<f8',", h) == "malformed header at byte 26: expected '}'");
  CHECK(parse("{'descr': '<f8', 'fortran_order': False, 'shape': (3)}", h) ==
        "header field 'shape' must be a tuple of integers, got (3)");
  CHECK(parse("{'descr': '<c8', 'fortran_order': False, 'shape': (3,)}", h)
            .starts_with("header field 'descr' is an unsupported dtype '<c8' (complex numbers)"));
  CHECK(parse("{'descr': '<f8', 'fortran_order': 0, 'shape': (3,)}", h) ==
        "header field 'fortran_order' must be True or False, got 0");
  CHECK(parse("{'descr': '<f8', 'shape': (3,)}", h) == "header has no 'fortran_order' field");
  // deep brackets stop at the nesting limit instead of recursing on
  CHECK(parse("{'descr': " + std::string(100000, '[') + "}", h).ends_with("brackets nested too deeply"));
}

TEST_CASE("parse_npy_header: arbitrary bytes give a header or a message", "[npy]") {
  std::mt19937 rng(7);
  const std::string good = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
  for (int i = 0; i < 20000; i++) {
    std::string text = good;
    for (int k = int(rng() % 4); k >= 0; k--) text[rng() % text.size()] = char(rng() % 256);
    if (rng() % 3 == 0) text.resize(rng() % text.size());
    NpyHeader h;
    std::string why = parse(text, h);
    if (why.empty()) {
      CHECK(h.shape.rank <= kMaxRank);
      for (int d = 0; d < h.shape.rank; d++) CHECK(h.shape.dim[d] >= 1);
    }
  }
}

TEST_CASE("npy_header_f8: NumPy's layout, 64-byte aligned", "[npy]") {
  Shape s;
  s.rank = 2;
  s.dim[0] = 2;
  s.dim[1] = 3;
  std::string h = npy_header_f8(s);
  CHECK(h.size() == 128);
  CHECK(h.substr(0, 10) == std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  CHECK(h.substr(10, 59) == "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }");
  CHECK(h.back() == '\n');
  for (int rank = 0; rank <= kMaxRank; rank++) {
    Shape r;
    r.rank = rank;
    for (int d = 0; d < rank; d++) r.dim[d] = int64_t(1) << (7 * d);
    std::string t = npy_header_f8(r);
    CHECK(t.size() % 64 == 0);
    CHECK(size_t(uint8_t(t[8]) | uint8_t(t[9]) << 8) == t.size() - 10);
    NpyHeader back;
    REQUIRE(parse_npy_header(std::string_view(t).substr(10), 10, back) == "");
    CHECK(back.shape.rank == rank);
    for (int d = 0; d < rank; d++) CHECK(back.shape.dim[d] == r.dim[d]);
  }
}

TEST_CASE("shuffled_indices: a permutation, the same for the same seed", "[shuffle]") {
  int64_t *a = shuffled_indices(1000, 42);
  int64_t *b = shuffled_indices(1000, 42);
  std::vector<int> seen(1000, 0);
  bool moved = false;
  for (int i = 0; i < 1000; i++) {
    CHECK(a[i] == b[i]);
    seen[size_t(a[i])]++;
    moved = moved || a[i] != i;
  }
  for (int c : seen) CHECK(c == 1);
  CHECK(moved);
  // Fisher-Yates from the last place down over SplitMix64(1): the order the docs give
  int64_t *p = shuffled_indices(10, 1);
  CHECK(std::vector<int64_t>(p, p + 10) == std::vector<int64_t>{4, 2, 8, 1, 9, 3, 0, 6, 7, 5});
  CHECK(shuffled_indices(0, 1) != nullptr);
}

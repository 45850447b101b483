// test_tensor_echo.cpp — repl/tensor_echo.h: the REPL's and the notebook's echo of
// a tensor by rows (SPEC §19), NumPy's layout, elision past 6 rows or columns, and
// the HTML table's shape and elision past 20.
#include <catch2/catch.hpp>
#include <string>

#include "repl/tensor_echo.h"
#include "runtime/eval.h"
#include "runtime/gc.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"

using namespace kiln;

namespace {

Value iota_tensor(const Shape &s, double start = 1.0) {
  gc_init();
  Tensor *t = alloc_tensor(s);
  for (int64_t i = 0; i < t->size; i++) t->data[i] = start + double(i);
  return from_ptr(t);
}

size_t count_of(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) n++;
  return n;
}

}  // namespace

TEST_CASE("a 2x3 tensor echoes by rows as SPEC 19 shows", "[tensor_echo]") {
  Value t = iota_tensor(Shape::of({2, 3}));
  CHECK(echo_string(t) == "#<tensor 2x3\n  [[1.0 2.0 3.0]\n   [4.0 5.0 6.0]]>");
  // write keeps the one-line form.
  CHECK(write_string(t) == "#<tensor 2x3 [1.0 2.0 3.0 4.0 5.0 6.0]>");
}

TEST_CASE("rank 0 and 1 tensors and other values echo in write form", "[tensor_echo]") {
  Value v = iota_tensor(Shape::of({3}));
  CHECK(echo_string(v) == "#<tensor 3 [1.0 2.0 3.0]>");
  Value s = iota_tensor(Shape{}, 5.0);
  CHECK(echo_string(s) == "#<tensor scalar [5.0]>");
  CHECK(echo_string(make_int(42)) == "42");
  CHECK(echo_string(UNSPEC) == "");
}

TEST_CASE("elements are right-aligned to the widest one", "[tensor_echo]") {
  Value t = iota_tensor(Shape::of({2, 2}), -1.5);  // -1.5 -0.5 0.5 1.5
  CHECK(echo_string(t) == "#<tensor 2x2\n  [[-1.5 -0.5]\n   [ 0.5  1.5]]>");
}

TEST_CASE("more than 6 rows or columns elide the middle", "[tensor_echo]") {
  Value t = iota_tensor(Shape::of({8, 7}), 0.0);
  std::string want =
      "#<tensor 8x7\n"
      "  [[ 0.0  1.0  2.0 ...  4.0  5.0  6.0]\n"
      "   [ 7.0  8.0  9.0 ... 11.0 12.0 13.0]\n"
      "   [14.0 15.0 16.0 ... 18.0 19.0 20.0]\n"
      "   ...\n"
      "   [35.0 36.0 37.0 ... 39.0 40.0 41.0]\n"
      "   [42.0 43.0 44.0 ... 46.0 47.0 48.0]\n"
      "   [49.0 50.0 51.0 ... 53.0 54.0 55.0]]>";
  CHECK(echo_string(t) == want);
  // Exactly 6 is shown whole.
  std::string six = echo_string(iota_tensor(Shape::of({6, 6})));
  CHECK(six.find("...") == std::string::npos);
  CHECK(count_of(six, "\n") == 6);
}

TEST_CASE("rank 3 blocks are separated by a blank line, as NumPy does", "[tensor_echo]") {
  Value t = iota_tensor(Shape::of({2, 2, 2}));
  CHECK(echo_string(t) ==
        "#<tensor 2x2x2\n"
        "  [[[1.0 2.0]\n"
        "    [3.0 4.0]]\n"
        "\n"
        "   [[5.0 6.0]\n"
        "    [7.0 8.0]]]>");
}

TEST_CASE("multiple values echo one per line", "[tensor_echo]") {
  Value items[3] = {make_int(1), UNSPEC, iota_tensor(Shape::of({1, 2}))};
  CHECK(echo_string(make_values(3, items)) == "1\n#<tensor 1x2\n  [[1.0 2.0]]>");
}

TEST_CASE("the HTML table has a cell per element up to 20x20", "[tensor_echo]") {
  std::string small = tensor_html_table(iota_tensor(Shape::of({2, 3})));
  CHECK(small.find("<caption>tensor 2x3</caption>") != std::string::npos);
  CHECK(count_of(small, "<td>") == 6);
  CHECK(small.find("<td>6.0</td>") != std::string::npos);
  CHECK(count_of(small, "<tr>") == 3);  // the header row and two rows

  std::string big = tensor_html_table(iota_tensor(Shape::of({30, 25}), 0.0));
  CHECK(count_of(big, "<tr>") == 1 + 21);                  // 10 + elision + 10 rows
  CHECK(count_of(big, "<td>") == 21 * 21);                 // elision cells included
  CHECK(big.find("<td>749.0</td>") != std::string::npos);  // the last element
  CHECK(big.find("<td>375.0</td>") == std::string::npos);  // row 15 is elided
  CHECK(big.find("<th>29</th>") != std::string::npos);     // the last row's label

  std::string cube = tensor_html_table(iota_tensor(Shape::of({2, 2, 2})));
  CHECK(cube.find("<th>1,0</th>") != std::string::npos);  // rows labelled by the leading indices
  std::string scalar = tensor_html_table(iota_tensor(Shape{}, 7.0));
  CHECK(count_of(scalar, "<td>") == 1);
}

#include "repl/tensor_echo.h"

#include <algorithm>
#include <vector>

#include "runtime/eval.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"
#include "stdlib/builtins.h"

namespace kiln {

namespace {

// The indices of an axis of length n that are shown; -1 stands for the elision.
std::vector<int64_t> shown_indices(int64_t n, int64_t max_items, int64_t edge) {
  std::vector<int64_t> idx;
  if (n <= max_items) {
    for (int64_t i = 0; i < n; i++) idx.push_back(i);
    return idx;
  }
  for (int64_t i = 0; i < edge; i++) idx.push_back(i);
  idx.push_back(-1);
  for (int64_t i = n - edge; i < n; i++) idx.push_back(i);
  return idx;
}

struct RowsPrinter {
  const Tensor *t;
  int64_t stride[kMaxRank];
  size_t width = 0;  // of the widest shown element
  bool measuring = true;
  std::string out;
  std::string number;

  explicit RowsPrinter(const Tensor *tensor) : t(tensor) {
    int64_t s = 1;
    for (int a = t->shape.rank - 1; a >= 0; a--) {
      stride[a] = s;
      s *= t->shape.dim[a];
    }
  }

  void element(int64_t i) {
    number.clear();
    format_double(number, t->data[i]);
    if (measuring) {
      width = std::max(width, number.size());
      return;
    }
    out.append(width - number.size(), ' ');
    out += number;
  }

  // The block of `axis` at `offset`, its '[' at `column`.
  void block(int axis, int64_t offset, size_t column) {
    int rank = t->shape.rank;
    if (!measuring) out += '[';
    std::vector<int64_t> idx = shown_indices(t->shape.dim[axis], kEchoMaxItems, kEchoEdgeItems);
    for (size_t k = 0; k < idx.size(); k++) {
      if (k > 0 && !measuring) {
        if (axis == rank - 1) {
          out += ' ';
        } else {
          // As NumPy: a newline between rows, one blank line more per axis above.
          out.append(size_t(rank - axis - 1), '\n');
          out.append(column + 1, ' ');
        }
      }
      if (idx[k] < 0) {
        if (!measuring) out += "...";
      } else if (axis == rank - 1) {
        element(offset + idx[k]);
      } else {
        block(axis + 1, offset + idx[k] * stride[axis], column + 1);
      }
    }
    if (!measuring) out += ']';
  }
};

void html_cell(std::string &out, const char *tag, const std::string &text) {
  out += '<';
  out += tag;
  out += '>';
  out += text;
  out += "</";
  out += tag;
  out += '>';
}

}  // namespace

std::string tensor_rows_string(Value tensor) {
  const Tensor *t = tensor_of(tensor);
  if (t->shape.rank < 2) return write_string(tensor);
  RowsPrinter p(t);
  p.block(0, 0, 2);
  p.measuring = false;
  p.out = "#<tensor " + shape_string(t->shape) + "\n  ";
  p.block(0, 0, 2);
  p.out += '>';
  return p.out;
}

std::string echo_string(Value v) {
  if (v == UNSPEC) return "";
  if (is_values(v)) {
    MultipleValues *mv = as<MultipleValues>(v);
    std::string out;
    for (int64_t i = 0; i < mv->n; i++) {
      if (mv->items[i] == UNSPEC) continue;
      if (!out.empty()) out += '\n';
      out += echo_string(mv->items[i]);
    }
    return out;
  }
  if (is_tensor(v)) return tensor_rows_string(v);
  return write_string(v);
}

std::string tensor_html_table(Value tensor) {
  const Tensor *t = tensor_of(tensor);
  const Shape &s = t->shape;
  // Rows are the indices of every axis but the last, columns the last axis.
  int64_t cols = s.rank == 0 ? 1 : s.dim[s.rank - 1];
  int64_t rows = t->size / cols;
  std::vector<int64_t> row_idx = shown_indices(rows, kHtmlMaxItems, kHtmlMaxItems / 2);
  std::vector<int64_t> col_idx = shown_indices(cols, kHtmlMaxItems, kHtmlMaxItems / 2);
  auto row_label = [&](int64_t r) {  // "I,J" of a rank-3 tensor's row
    std::string label;
    for (int a = s.rank - 2; a >= 0; a--) {
      label.insert(0, std::to_string(r % s.dim[a]) + (label.empty() ? "" : ","));
      r /= s.dim[a];
    }
    return label;
  };
  std::string out = "<table class=\"kiln-tensor\"><caption>tensor " + shape_string(s) + "</caption>";
  bool headers = s.rank >= 1;
  if (headers) {
    out += "<thead><tr>";
    if (s.rank >= 2) out += "<th></th>";
    for (int64_t c : col_idx) html_cell(out, "th", c < 0 ? "&hellip;" : std::to_string(c));
    out += "</tr></thead>";
  }
  out += "<tbody>";
  std::string number;
  for (int64_t r : row_idx) {
    out += "<tr>";
    if (s.rank >= 2) html_cell(out, "th", r < 0 ? "&vellip;" : row_label(r));
    for (int64_t c : col_idx) {
      if (r < 0 || c < 0) {
        html_cell(out, "td", r < 0 && c < 0 ? "&dtdot;" : r < 0 ? "&vellip;" : "&hellip;");
        continue;
      }
      number.clear();
      format_double(number, t->data[r * cols + c]);
      html_cell(out, "td", number);
    }
    out += "</tr>";
  }
  out += "</tbody></table>";
  return out;
}

namespace {

// What an echo shows, as a string: golden tests run scripts, never the REPL, and
// show the rows form through it (tests/golden/notebook/echo_rows.lisp).
Value b_echo_string(int, Value *argv) { return make_string(echo_string(argv[0])); }

const BuiltinRegistrar tensor_echo_registrar([] {
  defbuiltin("%echo-string", 1, 1, b_echo_string,
             "(%echo-string VALUE): what the REPL and the notebook kernel echo for VALUE (a tensor of rank 2 "
             "or more by rows, anything else in write form).");
});

}  // namespace

}  // namespace kiln

// plot_data.cpp — reading the series of `plot` and `plot-svg` (plot_data.h).
#include "stdlib/plot_data.h"

#include <fmt/format.h>

#include <cmath>

#include "runtime/args.h"
#include "runtime/eval.h"
#include "runtime/tensor.h"

namespace kiln {

namespace {

constexpr const char *kSeriesWhat = "a list, vector or rank-1 tensor of numbers, or (NAME . SERIES)";

// The points of DATA, or the type error naming argument POS (whose whole value is ARG).
std::vector<double> read_points(const char *who, int pos, Value data, Value arg) {
  std::vector<double> ys;
  if (is_tensor(data)) {
    Tensor *t = tensor_of(data);
    if (t->shape.rank != 1) type_error(who, pos, kSeriesWhat, arg);
    ys.assign(t->data, t->data + t->size);
  } else if (is_vector(data)) {
    Vector *v = as<Vector>(data);
    for (int64_t i = 0; i < v->len; i++) {
      if (!is_number(v->items[i])) type_error(who, pos, kSeriesWhat, arg);
      ys.push_back(number_as_double(v->items[i]));
    }
  } else if (data == NIL || is_pair(data)) {
    if (list_length(data) < 0) type_error(who, pos, kSeriesWhat, arg);
    for (Value p = data; p != NIL; p = cdr(p)) {
      // A list of 10^8 numbers takes a while to copy; Ctrl-C must stop it.
      if ((ys.size() & 0xffff) == 0) check_interrupt();
      if (!is_number(car(p))) type_error(who, pos, kSeriesWhat, arg);
      ys.push_back(number_as_double(car(p)));
    }
  } else {
    type_error(who, pos, kSeriesWhat, arg);
  }
  if (ys.empty()) throw_errorf("{}: argument {}: a series needs at least one point", who, pos);
  return ys;
}

}  // namespace

PlotData read_plot_args(const char *who, int argc, Value *argv, int first) {
  PlotData d;
  int end = argc;
  // A trailing string is the title, once there is a series before it.
  if (end - first >= 2 && is_string(argv[end - 1])) {
    d.title = std::string(string_view_of(argv[end - 1]));
    d.has_title = true;
    end--;
  }
  if (end - first > kMaxPlotSeries)
    throw_errorf("{}: at most {} series, got {}", who, kMaxPlotSeries, end - first);
  bool any_finite = false;
  for (int i = first; i < end; i++) {
    PlotSeries s;
    Value data = argv[i];
    if (is_pair(data) && is_string(car(data))) {
      s.name = std::string(string_view_of(car(data)));
      data = cdr(data);
    } else {
      s.name = fmt::format("series {}", i - first + 1);
    }
    s.ys = read_points(who, i + 1, data, argv[i]);
    for (double y : s.ys) {
      if (!std::isfinite(y)) continue;
      if (!any_finite || y < d.lo) d.lo = y;
      if (!any_finite || y > d.hi) d.hi = y;
      any_finite = true;
    }
    d.longest = std::max(d.longest, s.ys.size());
    d.series.push_back(std::move(s));
  }
  if (!any_finite) throw_errorf("{}: nothing to draw: no series has a finite point", who);
  return d;
}

std::string plot_number(double x, int precision) {
  if (x == 0) x = 0;  // -0 prints as 0
  return fmt::format("{:.{}g}", x, precision);
}

int distinct_precision(const std::vector<double> &values) {
  for (int p = 3; p < 17; p++) {
    bool distinct = true;
    for (size_t i = 0; i < values.size() && distinct; i++)
      for (size_t j = i + 1; j < values.size() && distinct; j++)
        if (values[i] != values[j] && plot_number(values[i], p) == plot_number(values[j], p))
          distinct = false;
    if (distinct) return p;
  }
  return 17;
}

}  // namespace kiln

// plot_data.h — what `plot` and `plot-svg` draw, read from their arguments, and the
// number text their axes share (docs/progress-and-plots.md).
//
// Invariant: a PlotData holds plain C++ copies (doubles, std::string), never Lisp
// values, so the renderers may allocate freely while they hold one. Every series has
// at least one point and at least one series has a finite point, so `lo <= hi`.
#pragma once
#include <string>
#include <vector>

#include "runtime/object.h"

namespace kiln {

// Both renderers cycle through this many glyphs or colours, so more series would
// repeat one in the legend.
constexpr int kMaxPlotSeries = 10;

struct PlotSeries {
  std::string name;        // from ("NAME" . DATA), else "series K"
  std::vector<double> ys;  // NaN and infinities kept: the renderers skip them
};

struct PlotData {
  std::vector<PlotSeries> series;
  std::string title;
  bool has_title = false;
  size_t longest = 0;     // the x axis runs 0 .. longest-1
  double lo = 0, hi = 0;  // range of the finite points
};

// argv[first..] are the series, optionally followed by a title string. Raises the
// WHO-named errors of docs/progress-and-plots.md for anything else.
PlotData read_plot_args(const char *who, int argc, Value *argv, int first);

// The fraction of the way from lo to hi that y lies, computed on halves so that a
// range spanning most of the doubles does not overflow to infinity.
inline double plot_fraction(double y, double lo, double hi) {
  return (y * 0.5 - lo * 0.5) / (hi * 0.5 - lo * 0.5);
}

// The standalone SVG document plot-svg writes (stdlib/plot_svg.cpp); plot shows
// it too where a notebook displays pictures (rich_display.h).
std::string plot_svg_document(const PlotData &d);

// x as "%.Pg" would print it (fmt's spelling: "1e-05", "0.5", "3"), with -0 as 0.
std::string plot_number(double x, int precision);
// The fewest significant digits, from 3, that print different values differently.
int distinct_precision(const std::vector<double> &values);

}  // namespace kiln

// plot_text.cpp — (plot SERIES ... [TITLE]): a line chart drawn in ASCII on the
// current output port (docs/progress-and-plots.md).
//
// Invariant: the picture depends only on the arguments (fixed size, no terminal
// queries, IEEE arithmetic with no contraction), so golden tests can hold it.
// Each series is rasterised as line segments between its consecutive finite
// points: a column gets every row the segment passes through inside it, so a
// steep line stays connected and many points per column show their full spread.
#include <algorithm>
#include <cmath>
#include <string>

#include "runtime/port.h"
#include "stdlib/builtins.h"
#include "stdlib/plot_data.h"
#include "stdlib/rich_display.h"

namespace kiln {

namespace {

constexpr int kCols = 60;
constexpr int kRows = 15;
// Not + | or -, which the axes use.
constexpr char kGlyphs[kMaxPlotSeries + 1] = "*ox#@%&$=~";

struct Point {
  double x, y;  // in cells: x in [0, kCols-1], y in [0, kRows-1] with 0 the bottom row
};

struct Grid {
  char cell[kRows][kCols];
  Grid() {
    for (auto &row : cell) std::fill(std::begin(row), std::end(row), ' ');
  }
  static int nearest(double v) { return int(std::floor(v + 0.5)); }
  void mark_span(int col, double y0, double y1, char glyph) {
    int r0 = nearest(std::min(y0, y1)), r1 = nearest(std::max(y0, y1));
    for (int r = std::max(r0, 0); r <= std::min(r1, kRows - 1); r++) cell[r][col] = glyph;
  }
  void segment(Point a, Point b, char glyph) {
    int c0 = nearest(a.x), c1 = nearest(b.x);
    if (c0 == c1) {
      mark_span(c0, a.y, b.y, glyph);
      return;
    }
    double slope = (b.y - a.y) / (b.x - a.x);
    for (int c = c0; c <= c1; c++) {
      double x0 = std::max(a.x, c - 0.5), x1 = std::min(b.x, c + 0.5);
      mark_span(c, a.y + slope * (x0 - a.x), a.y + slope * (x1 - a.x), glyph);
    }
  }
};

Point to_cells(size_t i, double y, const PlotData &d) {
  double x = d.longest > 1 ? double(i) * (kCols - 1) / double(d.longest - 1) : 0;
  double row = d.lo == d.hi ? (kRows - 1) / 2 : plot_fraction(y, d.lo, d.hi) * (kRows - 1);
  return {x, row};
}

void draw_series(Grid &g, const PlotSeries &s, const PlotData &d, char glyph) {
  bool have_prev = false;
  Point prev{};
  for (size_t i = 0; i < s.ys.size(); i++) {
    if (!std::isfinite(s.ys[i])) continue;
    Point p = to_cells(i, s.ys[i], d);
    if (have_prev) g.segment(prev, p, glyph);
    else g.mark_span(Grid::nearest(p.x), p.y, p.y, glyph);
    prev = p;
    have_prev = true;
  }
}

void trim_right(std::string &line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
}

std::string render(const PlotData &d) {
  Grid g;
  for (size_t k = 0; k < d.series.size(); k++) draw_series(g, d.series[k], d, kGlyphs[k]);

  // y labels: max on the top row, min on the bottom, the midpoint in between;
  // a flat range has one value, on the middle row where its line is.
  std::string labels[kRows];
  int mid = (kRows - 1) / 2;
  if (d.lo == d.hi) {
    labels[mid] = plot_number(d.lo, distinct_precision({d.lo}));
  } else {
    double centre = d.lo * 0.5 + d.hi * 0.5;
    int p = distinct_precision({d.lo, centre, d.hi});
    labels[0] = plot_number(d.lo, p);
    labels[mid] = plot_number(centre, p);
    labels[kRows - 1] = plot_number(d.hi, p);
  }
  size_t lw = 0;
  for (auto &l : labels) lw = std::max(lw, l.size());
  std::string margin(lw + 1, ' ');

  std::string out;
  auto line = [&out](std::string l) {
    trim_right(l);
    out += l;
    out += '\n';
  };
  if (d.has_title) {
    size_t pad = d.title.size() < size_t(kCols) ? (kCols - d.title.size()) / 2 : 0;
    line(margin + ' ' + std::string(pad, ' ') + d.title);
  }
  for (int r = kRows - 1; r >= 0; r--) {
    std::string l = std::string(lw - labels[r].size(), ' ') + labels[r];
    l += labels[r].empty() ? " |" : " +";
    l.append(g.cell[r], kCols);
    line(l);
  }
  line(margin + '+' + std::string(kCols, '-'));
  std::string xs = margin + " 0";
  if (d.longest > 1) {
    std::string last = std::to_string(d.longest - 1);
    xs += std::string(kCols - 1 - last.size(), ' ') + last;
  }
  line(xs);
  // The legend wraps to stay within the chart's width.
  std::string legend = margin;
  for (size_t k = 0; k < d.series.size(); k++) {
    std::string entry = std::string(1, kGlyphs[k]) + ' ' + d.series[k].name;
    if (legend.size() > margin.size() && legend.size() + 3 + entry.size() > margin.size() + 1 + kCols) {
      line(legend);
      legend = margin;
    }
    legend += legend.size() > margin.size() ? "   " : " ";
    legend += entry;
  }
  line(legend);
  return out;
}

Value b_plot(int argc, Value *argv) {
  PlotData d = read_plot_args("plot", argc, argv, 0);
  Value port = current_output_port();
  if (!is_port(port) || !(as<Port>(port)->kind & PORT_OUTPUT))
    throw_errorf("plot: the current output port is not an output port");
  // A notebook shows the chart as a picture, with the text as its plain form.
  if (RichDisplay *display = rich_display_for(port)) {
    display->show({{"image/svg+xml", plot_svg_document(d)}, {"text/plain", render(d)}});
    return UNSPEC;
  }
  port_write(as<Port>(port), render(d));
  return UNSPEC;
}

BuiltinRegistrar plot_text_registrar([] {
  defbuiltin("plot", 1, -1, b_plot,
             "(plot SERIES ... [TITLE]): draw the series (lists, vectors or rank-1 tensors of numbers, "
             "or (NAME . SERIES)) as a 60x15 ASCII line chart on the current output port.");
});

}  // namespace
}  // namespace kiln

// plot_svg.cpp — (plot-svg PATH SERIES ... [TITLE]): the chart of `plot` as a
// standalone SVG file (docs/progress-and-plots.md).
//
// Invariant: the file is well-formed XML whatever the strings hold (text is escaped,
// strings' UTF-8 text is written as it is, and control characters XML forbids become
// '?'), and it holds exactly one <polyline> per series, in argument order, so a
// reader can find each line.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/xml_text.h"
#include "stdlib/builtins.h"
#include "stdlib/plot_data.h"
#include "stdlib/port_args.h"
#include "stdlib/rich_display.h"

namespace kiln {

namespace {

constexpr double kHeight = 400;
// The plot area; around it the title, the tick labels, and right of it the legend.
constexpr double kLeft = 72, kRight = 620, kTop = 44, kBottom = 350, kLegendGap = 16;
// Tableau's ten colours: distinct, and readable on white.
constexpr const char *kColours[kMaxPlotSeries] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
// Series with at most this many finite points also get a dot at each point.
constexpr size_t kMaxMarkedPoints = 50;

// An axis: the data range it shows and where its ticks go.
struct Axis {
  double lo, hi;
  std::vector<double> ticks;
  std::vector<std::string> labels;
};

// 1, 2 or 5 times a power of ten, near raw.
double nice_step(double raw) {
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double norm = raw / mag;
  return (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
}

void place_ticks(Axis &a, double step) {
  double first = std::ceil(a.lo / step), last = std::floor(a.hi / step);
  for (double k = first; k <= last && a.ticks.size() < 20; k++) a.ticks.push_back(k == 0 ? 0.0 : k * step);
  double biggest = 0;
  for (double t : a.ticks) biggest = std::max(biggest, std::fabs(t));
  // Plain decimals with as many places as the step needs, unless that gets long.
  int places = std::max(0, -int(std::floor(std::log10(step) + 1e-9)));
  bool plain = biggest < 1e7 && places <= 6;
  int digits = int(std::floor(std::log10(std::max(biggest, step))) - std::floor(std::log10(step))) + 1;
  for (double t : a.ticks)
    a.labels.push_back(plain ? fmt::format("{:.{}f}", t, places) : plot_number(t, std::max(1, digits)));
}

Axis y_axis(const PlotData &d) {
  Axis a;
  if (d.lo == d.hi) {
    double pad = d.lo == 0 ? 1 : std::fabs(d.lo) * 0.1;
    a.lo = d.lo - pad;
    a.hi = d.hi + pad;
  } else {
    double pad = (d.hi * 0.5 - d.lo * 0.5) * 0.1;  // 5% of the span on each side
    a.lo = d.lo - pad;
    a.hi = d.hi + pad;
  }
  a.lo = std::max(a.lo, -1.7976931348623157e308);
  a.hi = std::min(a.hi, 1.7976931348623157e308);
  place_ticks(a, nice_step((a.hi * 0.5 - a.lo * 0.5) / 3));
  return a;
}

Axis x_axis(const PlotData &d) {
  Axis a;
  double n = double(d.longest);
  a.lo = n > 1 ? 0 : -0.5;
  a.hi = n > 1 ? n - 1 : 0.5;
  place_ticks(a, std::max(1.0, nice_step((a.hi - a.lo) / 6)));
  return a;
}

double px(const Axis &x, double v) { return kLeft + plot_fraction(v, x.lo, x.hi) * (kRight - kLeft); }
double py(const Axis &y, double v) { return kBottom - plot_fraction(v, y.lo, y.hi) * (kBottom - kTop); }

// The legend sits right of the plot area, outside it so it never hides a line;
// the picture widens to fit it. Its width is a guess at the text's (about 7
// pixels a character at this size).
struct Legend {
  double width, height;
};
Legend legend_size(const PlotData &d) {
  size_t longest_name = 0;
  for (auto &s : d.series) longest_name = std::max(longest_name, s.name.size());
  return {44 + 7.0 * double(longest_name), 8 + 18.0 * double(d.series.size())};
}

}  // namespace

std::string plot_svg_document(const PlotData &d) {
  Axis xa = x_axis(d), ya = y_axis(d);
  Legend lg = legend_size(d);
  double width = std::ceil(kRight + kLegendGap + lg.width + 10);
  std::string o;
  o += fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n",
      width, kHeight);
  if (d.has_title) o += fmt::format("<title>{}</title>\n", xml_escape(d.title));
  o += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", width, kHeight);
  if (d.has_title)
    o += fmt::format("<text x=\"{:.1f}\" y=\"26\" text-anchor=\"middle\" font-size=\"16\">{}</text>\n",
                     (kLeft + kRight) / 2, xml_escape(d.title));

  o += "<g stroke=\"#dddddd\" stroke-width=\"1\">\n";
  for (double t : ya.ticks)
    o += fmt::format("<line x1=\"{}\" y1=\"{:.2f}\" x2=\"{}\" y2=\"{:.2f}\"/>\n", kLeft, py(ya, t), kRight,
                     py(ya, t));
  o += "</g>\n<g stroke=\"black\" stroke-width=\"1\">\n";
  o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", kLeft, kTop, kBottom);
  o += fmt::format("<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>\n", kLeft, kRight, kBottom);
  for (double t : ya.ticks)
    o += fmt::format("<line x1=\"{}\" y1=\"{:.2f}\" x2=\"{}\" y2=\"{:.2f}\"/>\n", kLeft - 5, py(ya, t), kLeft,
                     py(ya, t));
  for (double t : xa.ticks)
    o += fmt::format("<line x1=\"{:.2f}\" y1=\"{}\" x2=\"{:.2f}\" y2=\"{}\"/>\n", px(xa, t), kBottom,
                     px(xa, t), kBottom + 5);
  o += "</g>\n<g text-anchor=\"end\">\n";
  for (size_t i = 0; i < ya.ticks.size(); i++)
    o += fmt::format("<text x=\"{}\" y=\"{:.2f}\">{}</text>\n", kLeft - 8, py(ya, ya.ticks[i]) + 4,
                     ya.labels[i]);
  o += "</g>\n<g text-anchor=\"middle\">\n";
  for (size_t i = 0; i < xa.ticks.size(); i++)
    o += fmt::format("<text x=\"{:.2f}\" y=\"{}\">{}</text>\n", px(xa, xa.ticks[i]), kBottom + 19,
                     xa.labels[i]);
  o += "</g>\n";

  for (size_t k = 0; k < d.series.size(); k++) {
    const PlotSeries &s = d.series[k];
    std::string points;
    size_t finite = 0;
    for (size_t i = 0; i < s.ys.size(); i++) {
      if (!std::isfinite(s.ys[i])) continue;
      points += fmt::format("{}{:.2f},{:.2f}", finite ? " " : "", px(xa, double(i)), py(ya, s.ys[i]));
      finite++;
    }
    o += fmt::format(
        "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" stroke-linejoin=\"round\" "
        "points=\"{}\"/>\n",
        kColours[k], points);
    if (finite <= kMaxMarkedPoints) {
      o += fmt::format("<g fill=\"{}\">\n", kColours[k]);
      for (size_t i = 0; i < s.ys.size(); i++)
        if (std::isfinite(s.ys[i]))
          o += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"2.5\"/>\n", px(xa, double(i)),
                           py(ya, s.ys[i]));
      o += "</g>\n";
    }
  }

  o += fmt::format(
      "<g>\n<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"white\" stroke=\"#999999\"/>\n",
      kRight + kLegendGap, kTop, lg.width, lg.height);
  for (size_t k = 0; k < d.series.size(); k++) {
    double x = kRight + kLegendGap, ly = kTop + 16 + 18.0 * double(k);
    o += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>\n", x + 8,
        ly - 4, x + 30, ly - 4, kColours[k]);
    o += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>\n", x + 36, ly, xml_escape(d.series[k].name));
  }
  o += "</g>\n</svg>\n";
  return o;
}

namespace {

Value b_plot_svg(int argc, Value *argv) {
  std::string path = arg_path("plot-svg", 1, argv[0]);
  PlotData d = read_plot_args("plot-svg", argc, argv, 1);
  std::string svg = plot_svg_document(d);
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) file_error(fmt::format("plot-svg: cannot open \"{}\": {}", path, std::strerror(errno)));
  bool ok = std::fwrite(svg.data(), 1, svg.size(), f) == svg.size();
  int saved = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (!ok) file_error(fmt::format("plot-svg: cannot write \"{}\": {}", path, std::strerror(saved)));
  if (RichDisplay *display = rich_display()) display->show({{"image/svg+xml", svg}, {"text/plain", path}});
  return UNSPEC;
}

BuiltinRegistrar plot_svg_registrar([] {
  defbuiltin("plot-svg", 2, -1, b_plot_svg,
             "(plot-svg PATH SERIES ... [TITLE]): write the chart of plot as a standalone SVG file at PATH, "
             "with axes, ticks, a legend and the title.");
});

}  // namespace
}  // namespace kiln

// window.cpp — convolution and pooling: argument rules and eager loops (window.h).
#include "runtime/window.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/args.h"
#include "runtime/error.h"
#include "runtime/object.h"
#include "runtime/printer.h"
#include "runtime/threadpool.h"

namespace kiln {

Composite window_builtin(WindowOp op) {
  switch (op) {
  case WindowOp::Conv2d: return Composite::Conv2d;
  case WindowOp::Conv1d: return Composite::Conv1d;
  case WindowOp::MaxPool2d: return Composite::MaxPool2d;
  case WindowOp::AvgPool2d: return Composite::AvgPool2d;
  }
  return Composite::Conv2d;
}

const char *window_op_name(WindowOp op) { return BuiltinOp(window_builtin(op)).name(); }

namespace {

// Sizes as messages show them: "3x3" for two spatial axes, "3" for conv1d's one.
std::string sizes(bool one_axis, int64_t a, int64_t b) {
  return one_axis ? fmt::format("{}", b) : fmt::format("{}x{}", a, b);
}

struct Rules {
  const char *who;
  bool one_axis;        // conv1d
  std::string context;  // " (input 1x1x8x8, weight 4x1x3x3)": every message ends with the shapes

  [[noreturn]] void fail(const std::string &what) const { throw_errorf("{}: {}{}", who, what, context); }

  // STRIDE, PADDING, DILATION or a pool's K: an integer, or a list of one
  // integer per spatial axis, each >= min. conv1d's single axis is the second.
  void pair(const char *what, Value v, int64_t min, int64_t &a, int64_t &b) const {
    int want = one_axis ? 1 : 2;
    int64_t got[2] = {0, 0};
    int count = 0;
    bool ok = true;
    if (is_int(v)) {
      got[0] = got[1] = int_of(v);
      count = want;
    } else {
      for (Value p = v; ok && is_pair(p); p = cdr(p), count++) {
        if (count >= want || !is_int(car(p))) ok = false;
        else got[count] = int_of(car(p));
      }
      ok = ok && count == want && list_length(v) == want;
    }
    if (!ok)
      fail(fmt::format("{} must be an integer or a list of {} integer{}, got {}", what, want,
                       want == 1 ? "" : "s", error_value_string(v)));
    if (one_axis) got[1] = got[0], got[0] = min == 0 ? 0 : 1;
    for (int64_t x : got)
      if (x < min)
        fail(fmt::format("{} must be {}, got {}", what, min == 0 ? "non-negative" : "positive",
                         error_value_string(v)));
    a = got[0];
    b = got[1];
  }
};

// Output size along one axis, after checking the dilated kernel fits the padded input.
void fit(const Rules &r, Window &g) {
  int64_t eh = g.dh * (g.kh - 1) + 1, ew = g.dw * (g.kw - 1) + 1;
  int64_t ih = g.h + 2 * g.ph, iw = g.w + 2 * g.pw;
  if (eh > ih || ew > iw) {
    std::string kernel = sizes(r.one_axis, g.kh, g.kw), input = sizes(r.one_axis, ih, iw);
    if (g.dh != 1 || g.dw != 1)
      r.fail(fmt::format("kernel {} at dilation {} spans {}, larger than the padded input {}", kernel,
                         sizes(r.one_axis, g.dh, g.dw), sizes(r.one_axis, eh, ew), input));
    r.fail(fmt::format("kernel {} is larger than the padded input {}", kernel, input));
  }
  g.oh = (ih - eh) / g.sh + 1;
  g.ow = (iw - ew) / g.sw + 1;
}

}  // namespace

Window conv_window(WindowOp op, const Shape &xs, const Shape &ws, int argc, const Value *extra) {
  bool one = op == WindowOp::Conv1d;
  Rules r{window_op_name(op), one, fmt::format(" (input {}, weight {})", shape_string(xs), shape_string(ws))};
  int rank = one ? 3 : 4;
  if (xs.rank != rank)
    r.fail(fmt::format("the input must be {} (rank {}), got rank {}", one ? "N x C x L" : "N x C x H x W",
                       rank, xs.rank));
  if (ws.rank != rank)
    r.fail(fmt::format("the weight must be {} (rank {}), got rank {}", one ? "O x C x K" : "O x C x KH x KW",
                       rank, ws.rank));
  if (xs.dim[1] != ws.dim[1])
    r.fail(fmt::format("channels differ: the input has {}, the weight {}", xs.dim[1], ws.dim[1]));
  Window g{};
  g.op = op;
  g.n = xs.dim[0];
  g.c = xs.dim[1];
  g.h = one ? 1 : xs.dim[2];
  g.w = xs.dim[rank - 1];
  g.o = ws.dim[0];
  g.kh = one ? 1 : ws.dim[2];
  g.kw = ws.dim[rank - 1];
  g.sh = g.sw = g.dh = g.dw = 1;
  g.ph = g.pw = 0;
  if (argc > 2) r.pair("stride", extra[0], 1, g.sh, g.sw);
  if (argc > 3) r.pair("padding", extra[1], 0, g.ph, g.pw);
  if (argc > 4) r.pair("dilation", extra[2], 1, g.dh, g.dw);
  fit(r, g);
  g.out = one ? Shape::of({g.n, g.o, g.ow}) : Shape::of({g.n, g.o, g.oh, g.ow});
  return g;
}

Window pool_window(WindowOp op, const Shape &xs, int argc, const Value *args) {
  Rules r{window_op_name(op), false, fmt::format(" (input {})", shape_string(xs))};
  if (xs.rank != 4) r.fail(fmt::format("the input must be N x C x H x W (rank 4), got rank {}", xs.rank));
  Window g{};
  g.op = op;
  g.n = xs.dim[0];
  g.c = g.o = xs.dim[1];
  g.h = xs.dim[2];
  g.w = xs.dim[3];
  g.dh = g.dw = 1;
  g.ph = g.pw = 0;
  r.pair("kernel size", args[0], 1, g.kh, g.kw);
  g.sh = g.kh;
  g.sw = g.kw;
  if (argc > 2) r.pair("stride", args[1], 1, g.sh, g.sw);
  if (argc > 3) r.pair("padding", args[2], 0, g.ph, g.pw);
  // As PyTorch: a window never lies wholly in the padding.
  if (2 * g.ph > g.kh || 2 * g.pw > g.kw)
    r.fail(fmt::format("padding {}x{} must be at most half the kernel {}x{}", g.ph, g.pw, g.kh, g.kw));
  fit(r, g);
  g.out = Shape::of({g.n, g.c, g.oh, g.ow});
  return g;
}

namespace {

struct WindowJob {
  const double *x, *w;
  double *out;
  const Window *g;
  int64_t planes_per_chunk, planes;
};

// The input planes of sample n (conv: all C of them; pools: plane `first` alone)
// copied into `pad` with the padding filled in, so the loops below read every
// window position without a test: a position in the padding reads `fill`, the
// value the traced composite appends for it (window_graph.h).
void pad_planes(const Window &g, const double *x, int64_t count, double fill, std::vector<double> &pad) {
  int64_t hp = g.h + 2 * g.ph, wp = g.w + 2 * g.pw;
  pad.assign(static_cast<size_t>(count * hp * wp), fill);
  for (int64_t c = 0; c < count; c++)
    for (int64_t r = 0; r < g.h; r++)
      std::copy(x + (c * g.h + r) * g.w, x + (c * g.h + r + 1) * g.w,
                pad.begin() + ((c * hp + r + g.ph) * wp + g.pw));
}

// One output plane (n, o) of a convolution from sample n's padded planes: the
// accumulators of a row (or, at stride 1, of the whole plane) each add their
// products in (c, kh, kw) order (vectorised across them, never along a sum).
void conv_plane(const WindowJob &j, int64_t o, const double *pad, double *acc, double *dst) {
  const Window &g = *j.g;
  int64_t hp = g.h + 2 * g.ph, wp = g.w + 2 * g.pw, kk = g.kh * g.kw;
  if (g.sh == 1 && g.sw == 1) {
    // Stride 1: the whole plane in one run over the padded width (the columns
    // past OW are computed and dropped), long enough to vectorise on small images.
    int64_t span = (g.oh - 1) * wp + g.ow;
    for (int64_t p = 0; p < span; p++) acc[p] = 0.0;
    for (int64_t c = 0; c < g.c; c++)
      for (int64_t ky = 0; ky < g.kh; ky++)
        for (int64_t kx = 0; kx < g.kw; kx++) {
          double wv = j.w[((o * g.c + c) * g.kh + ky) * g.kw + kx];
          const double *r = pad + (c * hp + ky * g.dh) * wp + kx * g.dw;
          for (int64_t p = 0; p < span; p++) acc[p] = acc[p] + wv * r[p];
        }
    for (int64_t y = 0; y < g.oh; y++)
      for (int64_t x = 0; x < g.ow; x++) dst[y * g.ow + x] = acc[y * wp + x];
    return;
  }
  for (int64_t y = 0; y < g.oh; y++) {
    for (int64_t x = 0; x < g.ow; x++) acc[x] = 0.0;
    for (int64_t c = 0; c < g.c; c++) {
      const double *wc = j.w + (o * g.c + c) * kk;
      for (int64_t ky = 0; ky < g.kh; ky++) {
        const double *row = pad + (c * hp + y * g.sh + ky * g.dh) * wp;
        for (int64_t kx = 0; kx < g.kw; kx++) {
          double wv = wc[ky * g.kw + kx];
          const double *r = row + kx * g.dw;
          if (g.sw == 1)
            for (int64_t x = 0; x < g.ow; x++) acc[x] = acc[x] + wv * r[x];
          else
            for (int64_t x = 0; x < g.ow; x++) acc[x] = acc[x] + wv * r[x * g.sw];
        }
      }
    }
    for (int64_t x = 0; x < g.ow; x++) dst[y * g.ow + x] = acc[x];
  }
}

// One output plane of a pooling from its padded plane.
void pool_plane(const Window &g, const double *pad, double *dst) {
  int64_t wp = g.w + 2 * g.pw;
  bool max = g.op == WindowOp::MaxPool2d;
  for (int64_t y = 0; y < g.oh; y++)
    for (int64_t x = 0; x < g.ow; x++) {
      const double *p = pad + y * g.sh * wp + x * g.sw;
      double acc = max ? p[0] : 0.0;
      for (int64_t ky = 0; ky < g.kh; ky++)
        for (int64_t kx = 0; kx < g.kw; kx++) {
          double v = p[ky * wp + kx];
          if (!max) acc = acc + v;
          else if (ky + kx > 0) acc = (v > acc || v != v) ? v : acc;
        }
      dst[y * g.ow + x] = max ? acc : acc / double(g.kh * g.kw);
    }
}

void window_chunk(void *ctx, int64_t chunk) {
  auto *j = static_cast<WindowJob *>(ctx);
  const Window &g = *j->g;
  bool conv = window_is_conv(g.op);
  int64_t p1 = std::min(j->planes, (chunk + 1) * j->planes_per_chunk);
  std::vector<double> pad, acc(static_cast<size_t>((g.oh - 1) * (g.w + 2 * g.pw) + g.ow));
  int64_t padded_n = -1;
  for (int64_t p = chunk * j->planes_per_chunk; p < p1; p++) {
    double *dst = j->out + p * g.oh * g.ow;
    if (conv) {
      int64_t n = p / g.o;
      if (n != padded_n) pad_planes(g, j->x + n * g.c * g.h * g.w, g.c, 0.0, pad);
      padded_n = n;
      conv_plane(*j, p % g.o, pad.data(), acc.data(), dst);
    } else {
      pad_planes(g, j->x + p * g.h * g.w, 1, g.op == WindowOp::MaxPool2d ? -INFINITY : 0.0, pad);
      pool_plane(g, pad.data(), dst);
    }
  }
}

void run_window(const double *x, const double *w, double *out, const Window &g) {
  int64_t planes = g.n * g.o;
  int64_t work = planes * g.oh * g.ow * g.kh * g.kw * (window_is_conv(g.op) ? g.c : 1);
  int threads = compute_threads();
  WindowJob job{x, w, out, &g, planes, planes};
  if (threads <= 1 || work < kParallelMatmulWork || planes < 2) {
    window_chunk(&job, 0);
    return;
  }
  int64_t chunks_wanted = int64_t(threads) * 4;
  job.planes_per_chunk = std::max<int64_t>(1, (planes + chunks_wanted - 1) / chunks_wanted);
  parallel_for((planes + job.planes_per_chunk - 1) / job.planes_per_chunk, threads, window_chunk, &job);
}

}  // namespace

void k_conv(const double *x, const double *w, double *out, const Window &g) { run_window(x, w, out, g); }
void k_pool(const double *x, double *out, const Window &g) { run_window(x, nullptr, out, g); }

}  // namespace kiln

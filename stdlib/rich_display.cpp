// rich_display.cpp — the hook of rich_display.h and the builtins that use it:
// display-html, display-svg, and %rich-display-port? / %display-progress for
// stdlib/progress.lisp.
#include "stdlib/rich_display.h"

#include "runtime/port.h"
#include "stdlib/builtins.h"

namespace kiln {

static RichDisplay *g_rich_display = nullptr;

void set_rich_display(RichDisplay *d) { g_rich_display = d; }
RichDisplay *rich_display() { return g_rich_display; }

std::string svg_for_html(const std::string &svg) {
  size_t at = svg.find("<svg");
  return at == std::string::npos ? svg : svg.substr(at);
}

RichDisplay *rich_display_for(Value port) {
  if (!g_rich_display || !is_port(port)) return nullptr;
  Port *p = as<Port>(port);
  bool standard = p->is_file && !p->closed && (p->fp == stdout || p->fp == stderr);
  return standard ? g_rich_display : nullptr;
}

namespace {

Value show_text(const char *who, const char *mime, const char *plain, Value text) {
  std::string data(string_view_of(from_ptr(arg_string(who, 1, text))));
  if (RichDisplay *d = rich_display()) d->show({{mime, data}, {"text/plain", plain}});
  return UNSPEC;
}

Value b_display_html(int, Value *argv) { return show_text("display-html", "text/html", "#<html>", argv[0]); }

Value b_display_svg(int, Value *argv) { return show_text("display-svg", "image/svg+xml", "#<svg>", argv[0]); }

Value b_rich_display_port_p(int, Value *argv) {
  if (!is_port(argv[0])) type_error("%rich-display-port?", 1, "a port", argv[0]);
  return boolv(rich_display_for(argv[0]) != nullptr);
}

Value b_display_progress(int, Value *argv) {
  std::string line(string_view_of(from_ptr(arg_string("%display-progress", 1, argv[0]))));
  if (RichDisplay *d = rich_display()) d->progress(line, argv[1] != FALSE_V);
  return UNSPEC;
}

BuiltinRegistrar rich_display_registrar([] {
  defbuiltin("display-html", 1, 1, b_display_html,
             "(display-html STRING): in a notebook, shows STRING as HTML under the cell; elsewhere does "
             "nothing.");
  defbuiltin("display-svg", 1, 1, b_display_svg,
             "(display-svg STRING): in a notebook, shows STRING (an SVG document) as a picture under the "
             "cell; elsewhere does nothing.");
  defbuiltin("%rich-display-port?", 1, 1, b_rich_display_port_p,
             "(%rich-display-port? PORT): #t in a notebook when PORT is the standard output or error port "
             "(with-progress's).");
  defbuiltin("%display-progress", 2, 2, b_display_progress,
             "(%display-progress LINE FIRST): in a notebook, shows LINE in place of the last progress "
             "line, or as a new one when FIRST is true (with-progress's).");
});

}  // namespace
}  // namespace kiln

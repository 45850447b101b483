// rich_display.h — output a front end can show richer than text: the Jupyter
// kernel (docs/notebook.md) shows charts as SVG, HTML and a live progress line.
//
// Invariant: without a RichDisplay installed (scripts, the REPL, kiln test) every
// builtin here behaves exactly as before it existed: display-html and display-svg
// write nothing, plot writes its text chart, plot-svg only writes its file and
// with-progress draws only on a terminal. A front end installs one display for
// the whole process, from the thread that evaluates, before evaluating anything.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "runtime/object.h"

namespace kiln {

// (MIME type, data) pairs, the richest first; "text/plain" is always among them.
using MimeBundle = std::vector<std::pair<std::string, std::string>>;

struct RichDisplay {
  virtual ~RichDisplay() = default;
  virtual void show(const MimeBundle &bundle) = 0;
  // One progress line shown in place: `first` starts a new one, later calls
  // replace its text.
  virtual void progress(const std::string &line, bool first) = 0;
};

// An SVG document as a front end embeds it in HTML: from its <svg> element on,
// without the XML declaration, DOCTYPE or comments before it (an XML declaration
// inside HTML is an error to nbconvert's HTML export, which refuses the notebook).
// Text without an <svg start is returned as it is.
std::string svg_for_html(const std::string &svg);

void set_rich_display(RichDisplay *d);
RichDisplay *rich_display();
// The display, when one is installed and `port` is the process's standard
// output or error port (not a string port some code captures text with).
RichDisplay *rich_display_for(Value port);

}  // namespace kiln

// jupyter_requests.h — the replies to the shell requests that do not run code:
// kernel_info, is_complete, complete and inspect (docs/notebook.md). Each takes
// the request's content and returns the reply's content.
//
// Invariant: they only read the code they are given and the symbol table, through
// the REPL's own rules (entry_scan.h for open brackets, completion.h for what may
// be completed, commands.h's ,describe text), so the notebook and the terminal
// agree. Positions are in Unicode code points, as protocol 5.2 and later count
// them. Run them on the evaluating thread (they intern symbols).
#pragma once
#include "repl/jupyter_wire.h"

namespace kiln::jupyter {

json kernel_info_content();
json is_complete_content(const json &request);
json complete_content(const json &request);
json inspect_content(const json &request);

}  // namespace kiln::jupyter

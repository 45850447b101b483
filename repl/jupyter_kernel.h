// jupyter_kernel.h — `kiln jupyter kernel CONNECTION-FILE`: Kiln as a Jupyter kernel
// (SPEC §19, docs/notebook.md). Built only where ZeroMQ was found (KILN_HAVE_JUPYTER).
//
// Invariant: one thread evaluates (the big-stack thread, as in the REPL) and it
// alone touches Lisp values and the shell and stdin sockets; the heartbeat, the
// control channel and the output forwarder run on threads of their own that never
// touch a Lisp value, so a cell that runs for an hour still answers heartbeats,
// interrupt_request and shutdown_request. iopub is shared under a mutex.
#pragma once
#include <string>

namespace kiln {

// Runs the kernel until shutdown; the exit status (2 for a bad connection file).
int run_jupyter_kernel(const std::string &connection_file);

}  // namespace kiln

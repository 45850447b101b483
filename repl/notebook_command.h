// notebook_command.h — `kiln jupyter ...` (docs/notebook.md): install the kernel
// spec, or run as the kernel.
//
// Invariant: this file builds whether or not ZeroMQ, nlohmann-json and OpenSSL
// were found (KILN_HAVE_JUPYTER); without them `kiln jupyter` says the kernel is
// not built in and exits 1, and nothing else of kiln changes.
#pragma once

namespace kiln {

// argv[0] is "jupyter"; returns the exit status.
int run_jupyter_command(int argc, char **argv);

}  // namespace kiln

// jupyter_install.h — `kiln jupyter install [--user|--prefix DIR]`: writes the kernel
// spec (kernels/kiln/kernel.json) where Jupyter looks for one (docs/notebook.md).
//
// Invariant: the spec runs this very binary (its absolute path, read from
// /proc/self/exe), so the kernel a notebook starts is the kiln that installed it.
#pragma once

namespace kiln {

// argv[0] is "install"; returns the exit status (2 for bad options).
int install_jupyter_kernel(int argc, char **argv);

}  // namespace kiln

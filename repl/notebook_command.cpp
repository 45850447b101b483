#include "repl/notebook_command.h"

#include <cstdio>
#include <cstring>

#ifdef KILN_HAVE_JUPYTER
#include "repl/jupyter_install.h"
#include "repl/jupyter_kernel.h"
#endif

namespace kiln {

static const char *kJupyterUsage =
    "usage: kiln jupyter install [--user | --prefix DIR]\n"
    "       kiln jupyter kernel CONNECTION-FILE\n"
    "\n"
    "  install          write the Kiln kernel spec for Jupyter: system-wide\n"
    "                   (/usr/local/share/jupyter), for this user (--user), or\n"
    "                   under DIR/share/jupyter (--prefix DIR)\n"
    "  kernel FILE      run as a Jupyter kernel (Jupyter starts this itself)\n"
    "\n"
    "Then pick Kiln in Jupyter (docs/notebook.md).\n";

int run_jupyter_command(int argc, char **argv) {
  if (argc < 2 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0) {
    std::fputs(kJupyterUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
#ifdef KILN_HAVE_JUPYTER
  if (std::strcmp(argv[1], "install") == 0) return install_jupyter_kernel(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "kernel") == 0) {
    if (argc != 3) {
      std::fprintf(stderr, "kiln jupyter kernel: needs one CONNECTION-FILE\n%s", kJupyterUsage);
      return 2;
    }
    return run_jupyter_kernel(argv[2]);
  }
  std::fprintf(stderr, "kiln jupyter: unknown command %s\n%s", argv[1], kJupyterUsage);
  return 2;
#else
  std::fputs(
      "kiln jupyter: the Jupyter kernel is not built in (this kiln was configured without ZeroMQ, "
      "nlohmann-json or OpenSSL; install libzmq3-dev, cppzmq-dev, nlohmann-json3-dev and libssl-dev and "
      "rebuild)\n",
      stderr);
  return 1;
#endif
}

}  // namespace kiln

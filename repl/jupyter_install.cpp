#include "repl/jupyter_install.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>

namespace kiln {

namespace fs = std::filesystem;

static std::string this_binary() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "kiln" : p.string();
}

// Where `jupyter kernelspec install --user` would put it.
static fs::path user_data_dir() {
  if (const char *d = std::getenv("JUPYTER_DATA_DIR"); d && *d) return d;
  if (const char *d = std::getenv("XDG_DATA_HOME"); d && *d) return fs::path(d) / "jupyter";
  const char *home = std::getenv("HOME");
  return fs::path(home && *home ? home : ".") / ".local/share/jupyter";
}

static int usage(const char *problem) {
  std::fprintf(stderr, "kiln jupyter install: %s\nusage: kiln jupyter install [--user | --prefix DIR]\n",
               problem);
  return 2;
}

int install_jupyter_kernel(int argc, char **argv) {
  fs::path data = "/usr/local/share/jupyter";  // Jupyter's system-wide default
  bool chosen = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (chosen) return usage("give at most one of --user and --prefix");
    if (a == "--user") {
      data = user_data_dir();
    } else if (a == "--prefix") {
      if (i + 1 >= argc) return usage("--prefix needs a directory");
      data = fs::path(argv[++i]) / "share/jupyter";
    } else {
      return usage(("unknown option " + a).c_str());
    }
    chosen = true;
  }
  fs::path dir = data / "kernels" / "kiln";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "kiln jupyter install: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
    return 1;
  }
  nlohmann::json spec = {
      {"argv", {this_binary(), "jupyter", "kernel", "{connection_file}"}},
      {"display_name", "Kiln"},
      {"language", "kiln"},
      {"interrupt_mode", "signal"},
      {"metadata", nlohmann::json::object()},
  };
  fs::path file = dir / "kernel.json";
  std::ofstream out(file);
  out << spec.dump(2) << "\n";
  out.close();
  if (!out) {
    std::fprintf(stderr, "kiln jupyter install: cannot write %s\n", file.c_str());
    return 1;
  }
  std::printf("installed the Kiln kernel spec in %s\n", dir.c_str());
  return 0;
}

}  // namespace kiln

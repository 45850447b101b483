// main.cpp — the kiln command line (docs/cli.md).
#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/jit_context.h"
#include "compiler/kernel_tiering.h"
#include "repl/notebook_command.h"
#include "repl/session.h"
#include "repl/test_runner.h"
#include "runtime/big_stack.h"
#include "runtime/eval.h"
#include "runtime/library.h"
#include "runtime/printer.h"
#include "stdlib/boot.h"
#include "stdlib/builtins.h"
#include "stdlib/mpi.h"

namespace kiln {

static const char *kUsage =
    "usage: kiln [OPTIONS] [FILE [ARG...]]\n"
    "       kiln test [OPTIONS] PATH...\n"
    "       kiln jupyter install [--user | --prefix DIR]\n"
    "       kiln jupyter kernel CONNECTION-FILE\n"
    "\n"
    "  FILE [ARG...]   run FILE; (command-line) returns (\"FILE\" \"ARG\" ...)\n"
    "  - [ARG...]      read the program from standard input\n"
    "  -- FILE ...     run FILE (and ARGs) even when its name starts with -\n"
    "  -e EXPR         evaluate EXPR (may be repeated; runs in order with -l)\n"
    "  -p EXPR         evaluate EXPR and print its value in write form\n"
    "  -l FILE         load FILE first (may be repeated)\n"
    "  -L DIR          search DIR for imported libraries (may be repeated)\n"
    "  -i              start the REPL after the files and expressions\n"
    "  -q              no REPL banner\n"
    "  --jit-check     compile and run a tiny native kernel and report what works\n"
    "  --version       print the version and exit\n"
    "  -h, --help      print this help and exit\n"
    "\n"
    "kiln test runs golden tests (NAME.lisp or NAME.scm with NAME.out); its options:\n"
    "  -k TEXT, --list, -j/--jobs N, --timeout SEC, --fail-fast, -u/--update,\n"
    "  --junit FILE, --tap, -h/--help, -- (kiln test --help says what each does)\n"
    "kiln jupyter installs the Jupyter kernel spec or runs as the kernel\n"
    "  (kiln jupyter --help; docs/notebook.md)\n"
    "\n"
    "With no FILE: the REPL on a terminal, otherwise the program on stdin.\n"
    "Environment (docs/cli.md): KILN_THREADS, KILN_STACK_MB, KILN_CACHE_DIR,\n"
    "KILN_JIT_LOG, KILN_JIT_DUMP, KILN_JIT_LEVEL, KILN_GC_STRESS=N (collect every N\n"
    "allocations), KILN_HISTFILE, NO_COLOR, KILN_TEST_TIMEOUT, KILN_LOAD_PATH\n"
    "(DIR:DIR..., searched for imported libraries before the -L directories).\n";

struct Action {
  char kind;  // 'e' eval, 'p' print, 'l' load
  std::string text;
};

struct CommandLineOptions {
  std::vector<Action> actions;
  bool repl_after = false;
  bool quiet = false;
  bool from_stdin = false;
  bool jit_check = false;
  std::string file;
  std::vector<std::string> args;
};

// Ctrl-C in a script or -e: the evaluator stops at its next procedure call or
// loop iteration with "interrupted" (exit 130); a second Ctrl-C, for code stuck
// outside the evaluator, kills the process as usual. The REPL installs its own.
static void on_script_sigint(int) {
  if (g_interrupt) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
  g_interrupt = 1;
}

// Installed before anything else runs (static constructors of priority 101
// come first, before main): a Ctrl-C that arrived during start-up, before
// run() got here, was lost when SIGINT came in ignored (a background job of a
// non-interactive shell), and the program then ran to its end (crash_fuzz,
// issue 35). Now it waits in g_interrupt for the first poll. Only the dynamic
// loader's work (a few milliseconds) comes before it: a SIGINT then meets the
// inherited disposition (the default ends the process; an ignored one is
// dropped by the kernel, which no code of ours can see).
// `kiln test` puts the inherited disposition back before it installs its own.
static struct sigaction g_inherited_sigint;
__attribute__((constructor(101))) static void install_sigint_handler_first() {
  struct sigaction sa = {};
  sa.sa_handler = on_script_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // as std::signal installs it
  sigaction(SIGINT, &sa, &g_inherited_sigint);
  // Inherited blocked, Ctrl-C would wait forever; a SIGINT sent meanwhile
  // (kept pending, as a blocked signal is even when ignored) arrives now.
  sigset_t sigint;
  sigemptyset(&sigint);
  sigaddset(&sigint, SIGINT);
  pthread_sigmask(SIG_UNBLOCK, &sigint, nullptr);
}

static int run(void *p) {
  CommandLineOptions &o = *static_cast<CommandLineOptions *>(p);
  std::signal(SIGINT, on_script_sigint);
  int code = 0;
  if (run_guarded([] { init_kiln(); }, &code) != RunResult::ok) return code ? code : 1;
  if (o.jit_check) return jit_check_main();
  // Guarded like every evaluation: a Ctrl-C arriving just after init_kiln must
  // end the run with `interrupted`, not escape run() (list_from polled here, and
  // the uncaught InterruptThrow aborted the process; issue 35).
  if (run_guarded(
          [&] {
            // Consed on the stack, which the collector scans (a std::vector's
            // malloc memory it does not).
            Value list = NIL;
            for (size_t i = o.args.size(); i-- > 0;) list = cons(make_string(o.args[i]), list);
            g_command_line = cons(make_string(o.file.empty() ? "kiln" : o.file), list);
          },
          &code) != RunResult::ok)
    return code;
  for (const Action &a : o.actions) {
    RunResult r = run_guarded(
        [&] {
          if (a.kind == 'l') {
            load_file(a.text);
          } else {
            Value v = eval_string(a.text, a.kind == 'p' ? "-p" : "-e");
            if (a.kind == 'p') {
              std::string s = write_string(v) + "\n";
              std::fputs(s.c_str(), stdout);
            }
          }
        },
        &code);
    if (r != RunResult::ok) return code;
  }
  if (!o.file.empty()) {
    RunResult r = run_guarded([&] { load_file(o.file); }, &code);
    if (r != RunResult::ok) return code;
  } else if (o.from_stdin || (o.actions.empty() && !o.repl_after && !isatty(0))) {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    std::string text = ss.str();
    RunResult r = run_guarded([&] { eval_string(text, "<stdin>"); }, &code);
    if (r != RunResult::ok) return code;
  }
  bool repl = o.repl_after || (o.actions.empty() && o.file.empty() && !o.from_stdin && isatty(0));
  if (repl) return run_repl(!o.quiet);
  std::fflush(stdout);
  return 0;
}

static int command_line_error(const std::string &msg) {
  std::fprintf(stderr, "kiln: %s\n%s", msg.c_str(), kUsage);
  return 2;
}

}  // namespace kiln

int main(int argc, char **argv) {
  using namespace kiln;
  if (argc > 1 && std::strcmp(argv[1], "test") == 0) {
    sigaction(SIGINT, &g_inherited_sigint, nullptr);
    if (g_interrupt) std::raise(SIGINT);  // a Ctrl-C during start-up, under the inherited disposition
    return run_test_command(argc - 1, argv + 1);
  }
  // Before any thread exists (the interpreter's, the compiler's): see jit_context.h.
  jit_use_private_tmpdir();
  if (argc > 1 && std::strcmp(argv[1], "jupyter") == 0) {
    int status = run_jupyter_command(argc - 1, argv + 1);
    jit_exit_now_if_compiling(status);  // a kernel shut down while compiling (SPEC §17)
    return status;
  }
  CommandLineOptions o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto need = [&](const char *opt) -> std::string {
      if (i + 1 >= argc) {
        std::exit(command_line_error(std::string("option ") + opt + " needs an argument"));
      }
      return argv[++i];
    };
    if (a == "-e") o.actions.push_back({'e', need("-e")});
    else if (a == "-p") o.actions.push_back({'p', need("-p")});
    else if (a == "-l") o.actions.push_back({'l', need("-l")});
    else if (a == "-L") add_load_path_dir(need("-L"));
    else if (a == "-i") o.repl_after = true;
    else if (a == "-q") o.quiet = true;
    else if (a == "--jit-check") o.jit_check = true;
    else if (a == "--version") {
      std::printf("kiln %s (%s)\n", KILN_VERSION, mpi_build_description().c_str());
      return 0;
    } else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "-") {
      o.from_stdin = true;
      for (i++; i < argc; i++) o.args.push_back(argv[i]);
    } else if (a == "--") {
      if (i + 1 < argc) {
        o.file = argv[++i];
        for (i++; i < argc; i++) o.args.push_back(argv[i]);
      }
    } else if (a.size() > 1 && a[0] == '-') {
      return command_line_error("unknown option " + a);
    } else {
      o.file = a;
      for (i++; i < argc; i++) o.args.push_back(argv[i]);
    }
  }
  gc_init();
  int status = run_on_big_stack(run, &o);
  mpi_finish(status);
  // A kernel still compiling in the background is abandoned, not waited for (SPEC §17).
  jit_exit_now_if_compiling(status);
  return status;
}

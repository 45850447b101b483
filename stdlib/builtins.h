// builtins.h — how the standard library's builtins are registered
// (defbuiltin and the arg_* checkers are the runtime's, runtime/args.h).
//
// Each stdlib/*.cpp file registers its family with a file-scope
//   static BuiltinRegistrar FILE_registrar([] { defbuiltin(...); ... });
// named after its file: the ASan tree is a unity build (docs/testing.md, "CI time"),
// where several files are one translation unit, so file-local names must differ.
// The registrars run inside init_builtins(), after gc_init(), in link order.
#pragma once
#include <string_view>

#include "runtime/args.h"

namespace kiln {

struct BuiltinRegistrar {
  explicit BuiltinRegistrar(void (*fn)());
};
void init_builtins();  // runs every registrar once

}  // namespace kiln

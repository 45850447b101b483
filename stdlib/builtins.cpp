#include "stdlib/builtins.h"

#include <vector>

#include "runtime/eval.h"

namespace kiln {

static std::vector<void (*)()> &registrars() {
  static auto *r = new std::vector<void (*)()>();
  return *r;
}

BuiltinRegistrar::BuiltinRegistrar(void (*fn)()) { registrars().push_back(fn); }

void init_builtins() {
  static bool done = false;
  if (done) return;
  done = true;
  for (auto fn : registrars()) fn();
}

}  // namespace kiln

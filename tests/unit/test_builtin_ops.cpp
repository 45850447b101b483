// test_builtin_ops.cpp — the builtins that stand for an op or a composite
// (runtime/op_table.h, BuiltinOp) against the table: each is bound under the name
// its row gives, and given a value of a foreign type it hands that value's `call`
// hook its own BuiltinOp (stdlib's builtins name themselves by BuiltinOp, never by
// a string, so a builtin wired to the wrong op, or registered under another name,
// fails here rather than tracing wrongly).
#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/args.h"
#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/op_table.h"

using namespace kiln;

namespace {

struct Probe {
  ObjHeader h;
};

int g_seen = -1;  // the BuiltinOp index the probe's hook was last called with

uint8_t probe_type() {
  static const uint8_t type = [] {
    uint8_t t = register_object_type("builtin-op probe");
    g_type_hooks[t].call = [](BuiltinOp b, int, Value *) -> Value {
      g_seen = b.index();
      return TRUE_V;
    };
    g_type_hooks[t].print = [](std::string &out, Value, bool) { out += "#<probe>"; };
    return t;
  }();
  return type;
}

Value probe() { return from_ptr(alloc_obj<Probe>(probe_type())); }

// Calls builtin B with every argument list of ARGC values drawn from POOL that
// holds the probe somewhere; returns how many calls reached the hook, and fails
// if one reached it naming another BuiltinOp than EXPECTED.
int calls_reaching_hook(const Builtin *b, int argc, const std::vector<Value> &pool, int expected) {
  int reached = 0;
  std::vector<size_t> pick(size_t(argc), 0);
  for (;;) {
    std::vector<Value> argv(size_t(argc) + 1);
    for (int i = 0; i < argc; i++) argv[size_t(i)] = pool[pick[size_t(i)]];
    bool has_probe = false;
    for (int i = 0; i < argc; i++) has_probe = has_probe || pick[size_t(i)] == 0 || pick[size_t(i)] == 1;
    if (has_probe) {
      g_seen = -1;
      try {
        b->fn(argc, argv.data());
      } catch (LispError &) {
      }
      if (g_seen >= 0) {
        reached++;
        INFO(b->name << " with " << argc << " arguments");
        CHECK(g_seen == expected);
      }
    }
    int d = 0;
    while (d < argc && ++pick[size_t(d)] == pool.size()) pick[size_t(d++)] = 0;
    if (d == argc) break;
  }
  return reached;
}

}  // namespace

TEST_CASE("every builtin named by the op table is bound and reaches the tracer through its own op",
          "[builtin_ops]") {
  // 0: the probe, 1: a list holding it (concat's TENSORS), then ordinary values
  // for the other positions ("one-hot" is %one-hot's WHO).
  std::vector<Value> pool = {probe(), NOVALUE, make_fixnum(1), make_string("one-hot")};
  pool[1] = cons(pool[0], NIL);
  int named = 0;
  for (int i = 0; i < kBuiltinOpCount; i++) {
    BuiltinOp op = builtin_op_at(i);
    REQUIRE(op.index() == i);
    const char *name = op.name();
    if (!name) continue;  // an op no builtin records
    named++;
    INFO(name);
    Value v = sym(intern(name))->global;
    REQUIRE(is_builtin(v));
    const Builtin *b = as<Builtin>(v);
    CHECK(std::string(b->name) == name);
    int most = b->max_args < 0 ? b->min_args + 1 : b->max_args;
    int reached = 0;
    for (int argc = b->min_args; argc <= most; argc++) reached += calls_reaching_hook(b, argc, pool, i);
    CHECK(reached > 0);
  }
  // Every composite has a name, and so does every element-wise row with a builtin.
  CHECK(named >= kCompositeCount);
}

TEST_CASE("BuiltinOp round-trips through its index and names ops as their rows do", "[builtin_ops]") {
  // By text: two equal literals need not be one pointer (they are not under ASan).
  auto text = [](const char *s) { return s ? std::string_view(s) : std::string_view("(none)"); };
  for (int i = 0; i < kOpCount; i++) {
    BuiltinOp b = builtin_op_at(i);
    CHECK(b.is_op());
    CHECK(int(b.op()) == i);
    CHECK(text(b.name()) == text(op_info(Op(i)).builtin));
  }
  for (int c = 0; c < kCompositeCount; c++) {
    BuiltinOp b = builtin_op_at(kOpCount + c);
    CHECK_FALSE(b.is_op());
    CHECK(int(b.composite()) == c);
    CHECK(text(b.name()) == text(kCompositeNames[c]));
  }
  // The columns stated once in the rows: what kOpInfo says is what the row says.
  for (const BinaryOpRow &r : kBinaryOps) {
    CHECK(op_info(binary_op(r.op)).differentiable == r.differentiable);
    CHECK(text(op_info(binary_op(r.op)).builtin) == text(r.builtin));
    if (r.comparison) CHECK_FALSE(op_info(binary_op(r.op)).differentiable);
  }
  for (const UnaryOpRow &r : kUnaryOps) CHECK(op_info(unary_op(r.op)).differentiable == r.differentiable);
}

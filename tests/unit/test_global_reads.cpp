// test_global_reads.cpp — runtime/global_reads: what a recorder notes while the
// evaluator reads top-level variables, the epoch that set! and define move, and the
// snapshot comparison a jit procedure makes before using a cached kernel.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "runtime/eval.h"
#include "runtime/global_reads.h"
#include "runtime/object.h"

using namespace kiln;

namespace {

std::vector<std::string> names_of(Value snapshot) {
  std::vector<std::string> out;
  if (snapshot == NIL) return out;
  Vector *v = as<Vector>(snapshot);
  for (int64_t i = 0; i < v->len; i += 2) out.emplace_back(symbol_name(v->items[i]));
  return out;
}

// The snapshot's slot holding the value of variable `name`.
Value &slot_of(Value snapshot, const char *name) {
  Vector *v = as<Vector>(snapshot);
  for (int64_t i = 0; i < v->len; i += 2)
    if (symbol_name(v->items[i]) == name) return v->items[i + 1];
  FAIL("no " << name << " in the snapshot");
  return v->items[0];
}

}  // namespace

TEST_CASE("a recorder notes each top-level variable read once, in first-read order", "[global_reads]") {
  eval_string("(define gr-a 1.5) (define gr-b (list 1 2)) (define (gr-f) (+ gr-a gr-a (car gr-b)))", "gr");
  REQUIRE(g_global_reads == nullptr);
  Value snap = NIL;
  {
    GlobalReadRecorder rec;
    REQUIRE(g_global_reads != nullptr);
    eval_string("(gr-f)", "gr");
    snap = rec.snapshot();
  }
  REQUIRE(g_global_reads == nullptr);
  // gr-f itself, then what its body reads (+ and car are builtins held by globals)
  std::vector<std::string> names = names_of(snap);
  REQUIRE(names.size() >= 3);
  CHECK(names[0] == "gr-f");
  CHECK(std::count(names.begin(), names.end(), "gr-a") == 1);
  CHECK(std::count(names.begin(), names.end(), "gr-b") == 1);
  CHECK(std::count(names.begin(), names.end(), "+") == 1);
  CHECK(globals_unchanged(snap));
}

TEST_CASE("nothing read gives an empty snapshot, which never goes stale", "[global_reads]") {
  GlobalReadRecorder rec;
  eval_string("42", "gr");
  CHECK(rec.snapshot() == NIL);
  CHECK(globals_unchanged(NIL));
}

TEST_CASE("set! and define move the epoch, and a snapshot compares values by eqv?", "[global_reads]") {
  eval_string("(define gr-x 2.0) (define gr-t (tensor '(1.0 2.0)))", "gr");
  Value snap = NIL;
  {
    GlobalReadRecorder rec;
    eval_string("(list gr-x gr-t)", "gr");
    snap = rec.snapshot();
  }
  uint64_t e0 = g_global_epoch;
  eval_string("(set! gr-x (+ 1.0 1.0))", "gr");  // a new float object, eqv? to 2.0
  CHECK(g_global_epoch != e0);
  CHECK(globals_unchanged(snap));
  // the snapshot holds the variable's value now (a new object when floats are
  // boxed), so the next comparison is a word compare
  CHECK(slot_of(snap, "gr-x") == sym(intern("gr-x"))->global);
  uint64_t e1 = g_global_epoch;
  eval_string("(define gr-x 2)", "gr");  // exact 2 is not eqv? to 2.0
  CHECK(g_global_epoch != e1);
  CHECK_FALSE(globals_unchanged(snap));
  eval_string("(define gr-x 2.0)", "gr");
  CHECK(globals_unchanged(snap));
  eval_string("(set! gr-t (tensor '(1.0 2.0)))", "gr");  // equal? but another tensor
  CHECK_FALSE(globals_unchanged(snap));
}

TEST_CASE("an inner recorder passes its reads on to the enclosing one", "[global_reads]") {
  eval_string("(define gr-outer 1) (define gr-inner 2)", "gr");
  GlobalReadRecorder outer;
  eval_string("gr-outer", "gr");
  {
    GlobalReadRecorder inner;
    eval_string("gr-inner", "gr");
    CHECK(names_of(inner.snapshot()) == std::vector<std::string>{"gr-inner"});
  }
  CHECK(names_of(outer.snapshot()) == (std::vector<std::string>{"gr-outer", "gr-inner"}));
}

TEST_CASE("a fused element-wise nest still notes the variables it reads", "[global_reads][fused]") {
  eval_string("(define gr-u (tensor '(1.0 2.0 3.0))) (define gr-v (tensor '(4.0 5.0 6.0)))", "gr");
  eval_string("(define (gr-nest) (tensor-add (tensor-mul gr-u gr-v) gr-u))", "gr");
  GlobalReadRecorder rec;
  eval_string("(gr-nest)", "gr");
  std::vector<std::string> names = names_of(rec.snapshot());
  CHECK(std::count(names.begin(), names.end(), "gr-u") == 1);
  CHECK(std::count(names.begin(), names.end(), "gr-v") == 1);
  CHECK(std::count(names.begin(), names.end(), "tensor-mul") == 1);
}

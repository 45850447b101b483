// test_graph.cpp — the graph IR: recording (shapes, hash-consing) and the
// interpreter (bit-identical to the eager builtins, buffers reused safely). The
// optimiser's cases are in test_optimise.cpp.
#include <catch2/catch.hpp>
#include <string>

#include "compiler/graph.h"
#include "compiler/graph_eval.h"
#include "compiler/graph_text.h"
#include "runtime/eval.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"

using namespace kiln;

namespace {

std::string run(const char *src) { return write_string(eval_string(src, "graph-test")); }

std::string error_of(const char *src) {
  std::string wrapped = std::string("(guard (e (#t (error-object-message e))) ") + src + ")";
  return write_string(eval_string(wrapped, "graph-test"));
}

}  // namespace

TEST_CASE("graph: recording hash-conses identical nodes and infers shapes", "[graph]") {
  Graph g;
  int32_t x = g.param(0, ArgSpec{Shape::of({2, 3}), false});
  int32_t w = g.param(1, ArgSpec{Shape::of({3, 4}), false});
  int32_t m1 = g.matmul("matmul", x, w), m2 = g.matmul("matmul", x, w);
  CHECK(m1 == m2);
  CHECK(g[m1].shape == Shape::of({2, 4}));
  int32_t b = g.constant(1.5);
  CHECK(g.constant(1.5) == b);
  CHECK(g.constant(-0.0) != g.constant(0.0));  // constants compare by bits
  int32_t s = g.binary("tensor-add", Op::Add, m1, b);
  CHECK(g[s].shape == Shape::of({2, 4}));
  CHECK(g.reduce_axis(Op::SumAxis, s, 1, true) != g.reduce_axis(Op::SumAxis, s, 1, false));
  CHECK(g[g.reduce_axis(Op::SumAxis, s, 1, false)].shape == Shape::of({2}));
  CHECK(g.sum_to(s, Shape::of({2, 4})) == s);  // identity when the shapes agree
  CHECK(g.size() == 9);
}

TEST_CASE("graph: every attribute a row names tells nodes apart, in hashing and in the cache key's text",
          "[graph]") {
  Graph g;
  int32_t x = g.param(0, ArgSpec{Shape::of({4, 6}), false});
  int32_t idx = g.param(1, ArgSpec{Shape::of({3}), false});
  int32_t key = g.param(2, ArgSpec{Shape{}, true});
  int32_t cube = g.param(3, ArgSpec{Shape::of({2, 2, 2}), false});
  const int swap01[3] = {1, 0, 2}, swap12[3] = {0, 2, 1};
  // Pairs of nodes that differ in one attribute only, one pair per OpAttr bit.
  struct Pair {
    OpAttr attr;
    int32_t a, b;
  };
  const Pair pairs[] = {
      {kAttrAxis, g.argmax(x, 0), g.argmax(x, 1)},
      {kAttrWholeOrAxis, g.max_mask(x, -1), g.max_mask(x, 0)},
      {kAttrKeepdims, g.reduce_axis(Op::SumAxis, x, 1, true), g.reduce_axis(Op::SumAxis, x, 1, false)},
      {kAttrRange, g.slice(x, 1, 0, 2), g.slice(x, 1, 2, 2)},
      {kAttrAt, g.pad(x, 1, 0, Shape::of({4, 8})), g.pad(x, 1, 2, Shape::of({4, 8}))},
      {kAttrIndexUse, g.take(x, idx, 1, IndexUse::Take), g.take(x, idx, 1, IndexUse::OneHot)},
      {kAttrRandomKind, g.random(RandomKind::Uniform, key, Shape::of({2})),
       g.random(RandomKind::Normal, key, Shape::of({2}))},
      {kAttrPerm, g.transpose(cube, swap01), g.transpose(cube, swap12)},
      {kAttrShape, g.reshape(x, Shape::of({24})), g.reshape(x, Shape::of({6, 4}))},
  };
  // Allreduce: tests/unit/test_collective.cpp; Loop: tests/unit/test_loop.cpp
  uint16_t covered = kAttrReduce | kAttrLoop;
  for (const Pair &p : pairs) {
    INFO("attribute bit " << int(p.attr) << ": " << op_name(g[p.a].op));
    CHECK(op_has(g[p.a].op, p.attr));
    CHECK(p.a != p.b);
    covered |= p.attr;
  }
  for (const OpInfo &info : kOpInfo.at) CHECK((info.attrs & ~covered) == 0);
  // The text keys the kernel cache, so it must tell each pair apart as well.
  for (const Pair &p : pairs) {
    Graph one, two;
    one.nodes = g.nodes, two.nodes = g.nodes;
    one.num_params = two.num_params = g.num_params;
    one.outputs = {{p.a, false}}, two.outputs = {{p.a, false}};
    two.nodes[size_t(p.a)] = g[p.b];
    INFO(op_name(g[p.a].op));
    CHECK(graph_canonical_text(one) != graph_canonical_text(two));
  }
}

TEST_CASE("graph: graph-ir and graph-node-count as docs/graph.md shows", "[graph]") {
  CHECK(run("(graph-ir (lambda (x) (+ 6 x)))") == "(((0 param 0) (1 const 6.0) (2 add 1 0)) 2)");
  CHECK(run("(graph-node-count (lambda (x) (+ (* x x) (* x x))))") == "3");
  CHECK(run("(graph-node-count (lambda (x w) (tensor-add (matmul x w) (matmul x w))) (ones '(2 3)) (ones '(3 "
            "2)))") == "4");
  // Folding: (* 2 3) becomes one constant; a captured tensor is a constant too.
  CHECK(run("(graph-ir (lambda (x) (* (* 2 3) x)))") == "(((0 param 0) (1 const 6.0) (2 mul 1 0)) 2)");
  CHECK(run("(let ((c (tensor '(1.0 2.0)))) (graph-ir (lambda (x) (tensor-add c (tensor-mul c 2))) 1.0))") ==
        "(((0 param 0) (1 const #<tensor 2 [3.0 6.0]>)) 1)");
  // Helper procedures, let and a fixed-count loop all trace.
  CHECK(run("(define (sq v) (* v v)) (graph-ir (lambda (x) (let loop ((i 0) (acc x)) (if (= i 3) acc (loop "
            "(+ i 1) (sq acc))))))") == "(((0 param 0) (1 mul 0 0) (2 mul 1 1) (3 mul 2 2)) 3)");
  CHECK(run("(graph-ir (lambda (x) (if (< x 0) (- x) x)))") ==
        "(((0 param 0) (1 const 0.0) (2 less 0 1) (3 neg 0) (4 select 2 3 0)) 4)");
}

TEST_CASE("graph: graph-eval equals the eager builtins bit for bit", "[graph]") {
  eval_string(R"(
    (define ge-a (tensor-randn '(5 7) 11)) (define ge-b (tensor-randn '(7 3) 12)) (define ge-c (tensor-randn '(3) 13))
    (define (ge-f a b c)
      (let* ((z (+ (matmul a b) c)) (h (tensor-tanh z)) (s (tensor-sigmoid (transpose h))))
        (list (tensor-sum (tensor-exp (- z (tensor-max z 1 #t))) 1) (tensor-mean s 0) (relu (reshape h '(-1)))
              (tensor-max (tensor-abs h)) (sqrt (tensor-abs z)) (tensor-pow (tensor-abs h) 1.5) (max z 0.1) (min z c)
              (log (+ 2 (sin z))) (/ (cos z) (+ 3 (square z))))))
  )",
              "graph-test");
  for (int i = 0; i < 10; i++) {
    std::string src = "(equal? (graph-eval (lambda (a b c) (list-ref (ge-f a b c) " + std::to_string(i) +
                      ")) ge-a ge-b ge-c) (list-ref (ge-f ge-a ge-b ge-c) " + std::to_string(i) + "))";
    INFO(i);
    CHECK(eval_string(src, "graph-test") == TRUE_V);
  }
  CHECK(run("(graph-eval (lambda (u v) (matmul u v)) (tensor '(1.0 2.0)) (tensor '(3.0 4.0)))") == "11.0");
  CHECK(run("(graph-eval (lambda (x) x) (tensor '(1.0 2.0)))") == "#<tensor 2 [1.0 2.0]>");
  CHECK(run("(graph-eval (lambda (x) (tensor-sum x)) (tensor '((1.0 2.0) (3.0 4.0))))") == "10.0");
  CHECK(run("(graph-eval (lambda (x) (+ x 1)) (tensor 2.0))") == "#<tensor scalar [3.0]>");
}

TEST_CASE("graph: the interpreter reuses buffers without clobbering live values", "[graph]") {
  // A long chain whose intermediates die at once, with an early value used at the end.
  CHECK(eval_string(R"(
    (let ((x (tensor-randn '(16 16) 5)))
      (define (chain x)
        (let loop ((i 0) (y x))
          (if (= i 20) (+ y x (tensor-sum y)) (loop (+ i 1) (tensor-tanh (+ (* y 0.5) (matmul y x)))))))
      (equal? (graph-eval chain x) (chain x))))",
                    "graph-test") == TRUE_V);
}

TEST_CASE("graph: errors name the op and the shapes", "[graph]") {
  CHECK(error_of("(graph-eval (lambda (a b) (tensor-add a b)) (ones '(2 3)) (ones '(4 3)))") ==
        "\"tensor-add: shapes 2x3 and 4x3 do not broadcast\"");
  CHECK(error_of("(graph-eval (lambda (a b) (matmul a b)) (ones '(2 3)) (ones '(2 3)))") ==
        "\"matmul: inner dimensions differ (2x3 and 2x3)\"");
  CHECK(error_of("(graph-grad (lambda (a) (tensor-mul a a)) (ones '(8 8)))") ==
        "\"graph-grad: the loss must be a scalar, got a 8x8 tensor\"");
  CHECK(error_of("(graph-eval (lambda (a) (tensor-map (lambda (v) v) a)) (ones '(2)))") ==
        "\"graph: 'tensor-map' is not supported inside a traced function\"");
  CHECK(error_of("(graph-eval (lambda (a) (tensor-ref a 0)) (ones '(2)))") ==
        "\"graph: 'tensor-ref' is not supported inside a traced function\"");
  CHECK(error_of("(graph-eval (lambda (x) (log x 2)) 1.5)") ==
        "\"graph: 'log' is not supported inside a traced function\"");
  CHECK(error_of("(graph-eval (lambda (x) (if x 1 2)) 1.5)") ==
        "\"graph: the value of a traced tensor decides control flow here (a Lisp 'if' on it, or a loop's "
        "test); inside traced code use tensor-where, fori-loop, scan or while-loop\"");
  CHECK(error_of("(graph-eval (lambda (x) (graph-dot (lambda (y) y) x)) 1.5)") ==
        "\"graph: 'graph-dot' is not supported inside a traced function\"");
  // graph-eval and graph-grad nest (docs/graph.md, "Nesting"): no error.
  CHECK(error_of("(graph-eval (lambda (x) (graph-eval (lambda (y) y) x)) 1.5)") == "1.5");
  CHECK(
      error_of("(graph-eval (lambda (x) \"no\") 1.5)") ==
      "\"graph-eval: the traced function must return a number, a tensor or a tree of them, got \\\"no\\\"\"");
  CHECK(error_of("(graph-eval (lambda (x) x) \"s\")") ==
        "\"graph-eval: argument 2 must be a number or a tensor, got \\\"s\\\"\"");
}

TEST_CASE("graph: a symbolic value that escapes its trace cannot be used", "[graph]") {
  eval_string("(define gr-escaped #f) (graph-eval (lambda (x) (set! gr-escaped x) x) 1.0)", "graph-test");
  CHECK(error_of("(+ gr-escaped 1)") == "\"graph: '+' got a symbolic value outside its traced function\"");
}

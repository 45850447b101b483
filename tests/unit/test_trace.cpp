// test_trace.cpp — recording a graph from a Lisp procedure (compiler/trace.*)
// and the build pipeline on top of it (compiler/graph_build.*), checked on the
// recorded Graph itself rather than through graph-ir's printed form: which
// nodes exist, their ops, operands, shapes and number-ness. The golden tests
// see only the optimised graph, where folding and renumbering can hide a
// recording mistake (a duplicated node, a rank-0 tensor recorded as a number),
// and they cannot check that a failed trace leaves no trace active behind it.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "compiler/graph.h"
#include "compiler/graph_build.h"
#include "compiler/trace.h"
#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/tensor.h"

using namespace kiln;

// Failed shape checks print "2x3" rather than "{?}".
namespace Catch {
template <> struct StringMaker<Shape> {
  static std::string convert(const Shape &s) { return shape_string(s); }
};
}  // namespace Catch

namespace {

Value lisp(const char *src) { return eval_string(src, "trace-test"); }

ArgSpec number_arg() { return ArgSpec{}; }
ArgSpec tensor_arg(std::initializer_list<int64_t> dims) { return ArgSpec{Shape::of(dims), false}; }

// The message of the Lisp error F raises, or "<no error>".
template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (LispError &) {
    return error_message_of(g_raised);
  }
  return "<no error>";
}

int count_ops(const Graph &g, Op op) {
  int n = 0;
  for (const GraphNode &node : g.nodes) n += node.op == op;
  return n;
}

}  // namespace

TEST_CASE("trace: identical operations on symbolic values share one node", "[trace]") {
  Graph g;
  ArgSpec args[] = {tensor_arg({2, 3}), tensor_arg({2, 3})};
  int32_t out = trace_into(g, "test", lisp("(lambda (x y) (+ (* 2 (* x y)) (* 2 (* x y))))"), 2, args);
  const GraphNode &root = g[out];
  CHECK(root.op == Op::Add);
  CHECK(root.in[0] == root.in[1]);
  CHECK(count_ops(g, Op::Mul) == 2);    // x*y and 2*(x*y), each once
  CHECK(count_ops(g, Op::Const) == 1);  // the two 2s
  CHECK(g.size() == 6);                 // x, y, x*y, 2, 2*(x*y), the sum
  CHECK(g.num_params == 2);
  CHECK(g[0].op == Op::Param);
  CHECK(g[1].param_index == 1);
}

TEST_CASE("trace: numbers and rank-0 tensors stay distinct kinds of node", "[trace]") {
  Value f = lisp("(lambda (x) (* x 3))");
  Graph gn, gt;
  ArgSpec num = number_arg(), rank0 = tensor_arg({});
  int32_t as_number = trace_into(gn, "test", f, 1, &num);
  int32_t as_tensor = trace_into(gt, "test", f, 1, &rank0);
  CHECK(gn[as_number].shape.rank == 0);
  CHECK(gt[as_tensor].shape.rank == 0);
  CHECK(gn[as_number].is_number);
  CHECK_FALSE(gt[as_tensor].is_number);

  // In one trace, the number 2.0 and a captured rank-0 tensor holding 2.0 are
  // two constants, so x + 2.0 and x + #<tensor 2.0> are two nodes.
  Graph g;
  int32_t out =
      trace_into(g, "test", lisp("(let ((two (tensor 2.0))) (lambda (x) (- (+ x 2.0) (+ x two))))"), 1, &num);
  const GraphNode &sub = g[out];
  REQUIRE(sub.op == Op::Sub);
  CHECK(sub.in[0] != sub.in[1]);
  CHECK(g[sub.in[0]].is_number);
  CHECK_FALSE(g[sub.in[1]].is_number);
  CHECK(count_ops(g, Op::Const) == 2);
  CHECK_FALSE(sub.is_number);  // a number combined with a tensor is a tensor
}

TEST_CASE("trace: element-wise operations record their broadcast shape", "[trace]") {
  Graph g;
  ArgSpec args[] = {tensor_arg({4, 1}), tensor_arg({5}), number_arg()};
  int32_t out = trace_into(g, "test", lisp("(lambda (a b s) (tensor-mul (tensor-add a b) s))"), 3, args);
  CHECK(g[out].shape == Shape::of({4, 5}));
  CHECK(g[g[out].in[0]].shape == Shape::of({4, 5}));
  CHECK(g[g[out].in[1]].shape == Shape{});

  Graph bad;
  ArgSpec mismatched[] = {tensor_arg({2, 3}), tensor_arg({4, 3})};
  CHECK(error_of([&] { trace_into(bad, "test", lisp("(lambda (a b) (tensor-add a b))"), 2, mismatched); }) ==
        "tensor-add: shapes 2x3 and 4x3 do not broadcast");
}

TEST_CASE("trace: structural operations record the eager builtins' result shapes", "[trace]") {
  // "2x4 tensor", "scalar number": the result node's shape and kind.
  auto result_of = [](const char *src, std::initializer_list<ArgSpec> specs) {
    Graph g;
    std::vector<ArgSpec> args(specs);
    const GraphNode &n = g[trace_into(g, "test", lisp(src), int(args.size()), args.data())];
    return shape_string(n.shape) + (n.is_number ? " number" : " tensor");
  };
  CHECK(result_of("(lambda (a b) (matmul a b))", {tensor_arg({2, 3}), tensor_arg({3, 4})}) == "2x4 tensor");
  CHECK(result_of("(lambda (a b) (matmul a b))", {tensor_arg({3}), tensor_arg({3, 4})}) == "4 tensor");
  CHECK(result_of("(lambda (a b) (matmul a b))", {tensor_arg({3}), tensor_arg({3})}) == "scalar number");
  CHECK(result_of("(lambda (a) (transpose a))", {tensor_arg({2, 3})}) == "3x2 tensor");
  CHECK(result_of("(lambda (a) (transpose a '(1 0 2)))", {tensor_arg({2, 3, 4})}) == "3x2x4 tensor");
  CHECK(result_of("(lambda (a) (reshape a '(-1 2)))", {tensor_arg({2, 3, 4})}) == "12x2 tensor");
  CHECK(result_of("(lambda (a) (tensor-slice a 1 1 3))", {tensor_arg({2, 5})}) == "2x2 tensor");
  CHECK(result_of("(lambda (a b) (concat (list a b (ones '(2 1))) 1))",
                  {tensor_arg({2, 3}), tensor_arg({2, 4})}) == "2x8 tensor");
  CHECK(result_of("(lambda (a) (tensor-sum a 1 #t))", {tensor_arg({2, 3})}) == "2x1 tensor");
  CHECK(result_of("(lambda (a) (tensor-max a -1))", {tensor_arg({2, 3})}) == "2 tensor");
  CHECK(result_of("(lambda (a) (tensor-mean a))", {tensor_arg({2, 3})}) == "scalar number");
  // Shape queries answer from the recorded shape and record nothing of their own.
  CHECK(result_of("(lambda (a b) (reshape b (tensor-shape a)))", {tensor_arg({3, 2}), tensor_arg({6})}) ==
        "3x2 tensor");

  // Concatenating three tensors is a chain of two concat nodes.
  Graph g;
  ArgSpec args[] = {tensor_arg({1}), tensor_arg({2}), tensor_arg({3})};
  int32_t out = trace_into(g, "test", lisp("(lambda (a b c) (concat (list a b c)))"), 3, args);
  CHECK(g[out].op == Op::Concat);
  CHECK(count_ops(g, Op::Concat) == 2);
  CHECK(g[out].shape == Shape::of({6}));
}

TEST_CASE("trace: an if on a symbolic comparison records a select of both branches", "[trace]") {
  Graph g;
  ArgSpec args[] = {tensor_arg({3}), number_arg()};
  int32_t out = trace_into(g, "test", lisp("(lambda (x s) (if (< x s) (* x 2) (- x)))"), 2, args);
  const GraphNode &sel = g[out];
  REQUIRE(sel.op == Op::Select);
  CHECK(g[sel.in[0]].op == Op::Less);
  CHECK(g[sel.in[1]].op == Op::Mul);
  CHECK(g[sel.in[2]].op == Op::Neg);
  CHECK(sel.shape == Shape::of({3}));

  // A chained comparison is the product of its masks.
  Graph chained;
  ArgSpec three[] = {number_arg(), number_arg(), number_arg()};
  out = trace_into(chained, "test", lisp("(lambda (a x b) (if (<= a x b) x 0))"), 3, three);
  REQUIRE(chained[out].op == Op::Select);
  const GraphNode &mask = chained[chained[out].in[0]];
  CHECK(mask.op == Op::Mul);
  CHECK(chained[mask.in[0]].op == Op::LessEqual);
  CHECK(chained[mask.in[1]].op == Op::LessEqual);
  CHECK(chained[out].is_number);

  // A symbolic test that is not a comparison cannot become a select.
  Graph bad;
  CHECK(
      error_of([&] { trace_into(bad, "test", lisp("(lambda (x s) (if (+ x s) x s))"), 2, args); }) ==
      "graph: the value of a traced tensor decides control flow here (a Lisp 'if' on it, or a loop's test); "
      "inside traced code use tensor-where, fori-loop, scan or while-loop");
}

TEST_CASE("trace: and, or and not refuse a symbolic value", "[trace]") {
  ArgSpec x = number_arg();
  // (and x) alone is x, with no truth test: the symbolic value must come first.
  for (const char *form : {"and", "or", "not"}) {
    INFO(form);
    std::string src = std::string("(lambda (x) (") + form + " x 1))";
    if (std::string(form) == "not") src = "(lambda (x) (not x))";
    Graph g;
    CHECK(error_of([&] { trace_into(g, "test", lisp(src.c_str()), 1, &x); }) ==
          std::string("graph: '") + form + "' is not supported inside a traced function");
    CHECK_FALSE(tracing_active());
  }
  // Even when the symbolic value is not the last operand, and on a comparison.
  Graph g;
  CHECK(error_of([&] { trace_into(g, "test", lisp("(lambda (x) (if (or (< x 0) #f) x 0))"), 1, &x); }) ==
        "graph: 'or' is not supported inside a traced function");
}

TEST_CASE("trace: arguments of the wrong kind are refused with the builtin's message", "[trace]") {
  ArgSpec num = number_arg(), vec = tensor_arg({3});
  Graph g1;
  CHECK(error_of([&] { trace_into(g1, "test", lisp("(lambda (x) (matmul x x))"), 1, &num); }) ==
        "matmul: argument 1 must be a tensor, got #<symbolic value scalar>");
  Graph g2;
  CHECK(error_of([&] { trace_into(g2, "test", lisp("(lambda (x) (tensor-add x \"a\"))"), 1, &vec); }) ==
        "tensor-add: argument 2 must be a number or a tensor, got \"a\"");
  Graph g3;
  CHECK(error_of([&] { trace_into(g3, "test", lisp("(lambda (x) (concat (list x 1.0)))"), 1, &vec); }) ==
        "concat: element 2 of argument 1 must be a tensor, got 1.0");
  Graph g4;
  CHECK(error_of([&] { trace_into(g4, "graph-eval", lisp("(lambda (x) 'sym)"), 1, &vec); }) ==
        "graph-eval: the traced function must return a number, a tensor or a tree of them, got sym");
  // The example arguments graph_build turns into ArgSpecs.
  CHECK(error_of([&] { arg_spec_of("graph-eval", 2, lisp("\"s\"")); }) ==
        "graph-eval: argument 2 must be a number or a tensor, got \"s\"");
  ArgSpec spec = arg_spec_of("graph-eval", 2, lisp("(ones '(2 3))"));
  CHECK(spec.shape == Shape::of({2, 3}));
  CHECK_FALSE(spec.is_number);
  CHECK(arg_spec_of("graph-eval", 2, lisp("7")).is_number);
}

TEST_CASE("trace: calling the traced procedure with the wrong arity ends the trace cleanly", "[trace]") {
  Value f = lisp("(define (trace-one x) (* x x)) trace-one");
  ArgSpec two[] = {number_arg(), number_arg()};
  Graph g;
  CHECK(error_of([&] { trace_into(g, "test", f, 2, two); }) == "trace-one: expected 1 argument, got 2");
  CHECK_FALSE(tracing_active());
  // The next trace starts afresh.
  Graph ok;
  int32_t out = trace_into(ok, "test", f, 1, two);
  CHECK(ok[out].op == Op::Mul);
  CHECK_FALSE(tracing_active());
}

TEST_CASE("trace: a symbolic value from an earlier trace is refused", "[trace]") {
  ArgSpec x = number_arg();
  Graph first;
  trace_into(first, "test", lisp("(define trace-kept #f) (lambda (x) (set! trace-kept x) x)"), 1, &x);
  Graph second;
  CHECK(error_of([&] { trace_into(second, "test", lisp("(lambda (y) (+ y trace-kept))"), 1, &x); }) ==
        "graph: '+' got a symbolic value of another trace, or of a nested gradient's function that has "
        "returned");
}

TEST_CASE("graph_build: forward and gradient graphs have the documented outputs", "[trace]") {
  ArgSpec args[] = {tensor_arg({2, 3}), number_arg()};
  Value f = lisp("(lambda (w s) (tensor-sum (* (* 2 3) w s)))");
  auto fwd = build_forward_graph("test", f, 2, args);
  REQUIRE(fwd->outputs.size() == 1);
  CHECK(fwd->outputs[0].as_number);
  CHECK((*fwd)[0].op == Op::Param);
  CHECK((*fwd)[1].op == Op::Param);
  CHECK(count_ops(*fwd, Op::Const) == 1);  // (* 2 3) folded into 6
  CHECK(fwd->num_params == 2);

  auto grad = build_grad_graph("test", f, 2, args);
  REQUIRE(grad->outputs.size() == 3);
  CHECK(grad->outputs[0].as_number);
  CHECK_FALSE(grad->outputs[1].as_number);
  CHECK((*grad)[grad->outputs[1].node].shape == Shape::of({2, 3}));
  CHECK(grad->outputs[2].as_number);
  CHECK((*grad)[grad->outputs[2].node].shape == Shape{});

  CHECK(error_of([&] { build_grad_graph("graph-grad", lisp("(lambda (w s) (* w s))"), 2, args); }) ==
        "graph-grad: the loss must be a scalar, got a 2x3 tensor");
  CHECK_FALSE(tracing_active());
}

// test_autodiff.cpp — graph-grad checked two ways: every rule against central
// finite differences of graph-eval on fixed pseudo-random inputs (relative error
// under 1e-6), and whole losses against PyTorch float64 autograd (gradients
// computed once by tests/data/graph_torch_refs.py and pasted below; relative
// error under 1e-12). Also: graph-grad's values equal the same computation done
// eagerly, bit for bit.
#include <gc/gc_allocator.h>
#include <malloc.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "compiler/autodiff.h"
#include "compiler/graph.h"
#include "runtime/eval.h"
#include "runtime/op_table.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"
#include "stdlib/builtins.h"

// Lisp values held by the test live in GC-scanned memory, not malloc memory.
using ValueVec = std::vector<kiln::Value, gc_allocator<kiln::Value>>;

using namespace kiln;

namespace {

// The formula shared with graph_torch_refs.py: exact in binary, distinct for i < 101.
double input_value(int64_t i, int k, bool positive) {
  double v = double((i * 37 + k * 11 + 5) % 101) / 50.0 - 1.0;
  return positive ? v + 2.0 : v;
}

struct ArgDesc {
  std::vector<int64_t> shape;  // empty = a number
  bool positive = false;
  bool onehot = false;
};

Value make_arg(const ArgDesc &d, int k) {
  if (d.shape.empty()) return make_double(input_value(0, k, d.positive));
  Shape s;
  for (int64_t x : d.shape) s.dim[s.rank++] = x;
  Tensor *t = alloc_tensor(s);
  for (int64_t i = 0; i < t->size; i++) t->data[i] = input_value(i, k, d.positive);
  if (d.onehot) {
    int64_t cols = s.dim[1];
    for (int64_t i = 0; i < t->size; i++) t->data[i] = (i % cols) == (i / cols) % cols ? 1.0 : 0.0;
  }
  return from_ptr(t);
}

Value call(const char *name, ValueVec args) {
  return apply_proc(sym(intern(name))->global, int(args.size()), args.data());
}

// Elements of a number or tensor, as doubles.
std::vector<double> elements(Value v) {
  if (is_number(v)) return {number_as_double(v)};
  Tensor *t = tensor_of(v);
  return std::vector<double>(t->data, t->data + t->size);
}

Value with_element(Value v, int64_t i, double x) {
  if (is_number(v)) return make_double(x);
  Tensor *t = tensor_of(v);
  Tensor *c = alloc_tensor(t->shape);
  for (int64_t j = 0; j < t->size; j++) c->data[j] = t->data[j];
  c->data[i] = x;
  return from_ptr(c);
}

double scalar_of(Value v) { return is_number(v) ? number_as_double(v) : tensor_of(v)->data[0]; }

// Central differences of graph-eval F at every element of every argument,
// compared with graph-grad: |fd - g| <= 1e-6 * max(1, |g|).
void check_finite_differences(const std::string &src, const std::vector<ArgDesc> &descs) {
  INFO(src);
  Value f = eval_string(src, "autodiff-test");
  ValueVec args;
  for (size_t k = 0; k < descs.size(); k++) args.push_back(make_arg(descs[k], int(k)));
  ValueVec gargs = {f};
  gargs.insert(gargs.end(), args.begin(), args.end());
  Value result = call("graph-grad", gargs);
  Value grads = cdr(result);
  for (size_t k = 0; k < args.size(); k++, grads = cdr(grads)) {
    std::vector<double> g = elements(car(grads)), x = elements(args[k]);
    REQUIRE(g.size() == x.size());
    for (size_t i = 0; i < x.size(); i++) {
      double h = 1e-5 * std::max(1.0, std::fabs(x[i]));
      ValueVec plus = args, minus = args;
      plus[k] = with_element(args[k], int64_t(i), x[i] + h);
      minus[k] = with_element(args[k], int64_t(i), x[i] - h);
      plus.insert(plus.begin(), f);
      minus.insert(minus.begin(), f);
      double fd = (scalar_of(call("graph-eval", plus)) - scalar_of(call("graph-eval", minus))) / (2 * h);
      INFO("argument " << k + 1 << " element " << i << ": fd " << fd << " graph-grad " << g[i]);
      CHECK(std::fabs(fd - g[i]) <= 1e-6 * std::max(1.0, std::fabs(g[i])));
    }
  }
}

using A = ArgDesc;
const std::vector<int64_t> S34 = {3, 4}, S4 = {4}, S31 = {3, 1}, S23 = {2, 3}, N = {};

}  // namespace

TEST_CASE("autodiff: every rule agrees with central finite differences", "[autodiff]") {
  // Binary ops with broadcasting (the gradient is summed back to each shape).
  check_finite_differences("(lambda (a b) (tensor-sum (tensor-mul (tensor-add a b) (tensor-add a b))))",
                           {A{S34}, A{S4}});
  check_finite_differences("(lambda (a b) (tensor-sum (square (- a b))))", {A{S34}, A{S31}});
  check_finite_differences("(lambda (a b) (tensor-sum (* (* a b) a)))", {A{S34}, A{S4}});
  check_finite_differences("(lambda (a b) (tensor-sum (/ a b)))", {A{S34}, A{S4, true}});
  check_finite_differences("(lambda (a b) (tensor-sum (tensor-pow a b)))", {A{S34, true}, A{S4}});
  check_finite_differences("(lambda (a b) (tensor-sum (* (max a b) (min a 0.25 b))))", {A{S34}, A{S34}});
  check_finite_differences("(lambda (a b) (tensor-sum (tensor-maximum a b)))", {A{S34}, A{S4}});
  // Unary ops (weighted so every element's gradient differs).
  const char *unary[] = {"tensor-neg", "tensor-exp", "tensor-tanh", "tensor-sigmoid", "relu", "tensor-abs",
                         "sin",        "cos",        "tan",         "square",         "/"};
  for (const char *op : unary)
    check_finite_differences(std::string("(lambda (a w) (tensor-sum (* w (") + op + " a))))",
                             {A{S34}, A{S34}});
  for (const char *op : {"tensor-log", "tensor-sqrt", "log", "sqrt"})
    check_finite_differences(std::string("(lambda (a w) (tensor-sum (* w (") + op + " a))))",
                             {A{S34, true}, A{S34}});
  check_finite_differences("(lambda (a) (tensor-sum (* a (1+ a) (1- a) (- a))))", {A{S34}});
  // Select, both branches, with a plain-number comparison too.
  check_finite_differences("(lambda (a b) (tensor-sum (if (< a b) (* a b) (- a (* 3 b)))))", {A{S34}, A{S4}});
  check_finite_differences("(lambda (x) (if (> x 0.1) (* x x x) (- x)))", {A{N}});
  check_finite_differences("(lambda (a) (tensor-sum (if (>= a 0) a (* a a))))", {A{S34}});
  // Reductions: whole, per axis, keepdims; max passes to the first maximal element.
  check_finite_differences("(lambda (a) (* (tensor-sum a) (tensor-mean a)))", {A{S34}});
  check_finite_differences("(lambda (a) (tensor-max (* a a)))", {A{S34}});
  check_finite_differences("(lambda (a) (tensor-sum (square (tensor-sum a 0))))", {A{S34}});
  check_finite_differences("(lambda (a) (tensor-sum (square (tensor-mean a 1 #t))))", {A{S34}});
  check_finite_differences("(lambda (a w) (tensor-sum (* w (tensor-max a 1))))", {A{S34}, A{{3}}});
  check_finite_differences("(lambda (a w) (tensor-sum (* w (tensor-max a 0 #t))))", {A{S34}, A{{1, 4}}});
  // Linear algebra and shape ops.
  check_finite_differences("(lambda (a b) (tensor-sum (square (matmul a b))))", {A{S34}, A{{4, 2}}});
  check_finite_differences("(lambda (a v) (tensor-sum (square (matmul a v))))", {A{S34}, A{S4}});
  check_finite_differences("(lambda (u a) (tensor-sum (square (matmul u a))))", {A{{3}}, A{S34}});
  check_finite_differences("(lambda (u v) (square (matmul u v)))", {A{S4}, A{S4}});
  check_finite_differences("(lambda (a w) (tensor-sum (* w (transpose a))))", {A{S34}, A{{4, 3}}});
  check_finite_differences("(lambda (a w) (tensor-sum (* w (transpose a '(2 0 1)))))",
                           {A{{2, 3, 4}}, A{{4, 2, 3}}});
  check_finite_differences("(lambda (a w) (tensor-sum (* w (reshape a '(6 -1)))))", {A{S34}, A{{6, 2}}});
  check_finite_differences("(lambda (a w) (tensor-sum (* w (tensor-slice a 1 1 3))))", {A{S34}, A{{3, 2}}});
  check_finite_differences("(lambda (a w) (tensor-sum (* w (square (tensor-slice a 0 2 3)))))",
                           {A{S34}, A{{1, 4}}});
  check_finite_differences("(lambda (a b w) (tensor-sum (* w (concat (list a (square b) a) 1))))",
                           {A{S34}, A{S31}, A{{3, 9}}});
  check_finite_differences("(lambda (a w) (tensor-sum (* w (concat (list (tensor-slice a 0 1 3) a) -2))))",
                           {A{S34}, A{{5, 4}}});
  // SPEC §13 ops: take (repeated indices add up), where, clip (bounds off the
  // inputs' grid, away from the kinks), and the composites of the training library.
  check_finite_differences("(lambda (a w) (tensor-sum (* w (tensor-take a '(2 0 2 1) 1))))",
                           {A{S34}, A{S34}});
  check_finite_differences("(lambda (a w) (tensor-sum (* w (tensor-take a (tensor '((0 2) (2 2)))))))",
                           {A{S34}, A{{2, 2, 4}}});
  check_finite_differences(
      "(lambda (a b w) (tensor-sum (* w (tensor-where (tensor '(1 0 1 0)) a (square b)))))",
      {A{S34}, A{S4}, A{S34}});
  check_finite_differences("(lambda (a w) (tensor-sum (* w (tensor-clip a -0.31 0.405))))", {A{S34}, A{S34}});
  check_finite_differences("(lambda (a w) (tensor-sum (* w (softmax a))))", {A{S34}, A{S34}});
  check_finite_differences("(lambda (a w) (tensor-sum (* w (log-softmax a 0))))", {A{S34}, A{S34}});
  check_finite_differences("(lambda (a) (cross-entropy a '(1 0 3)))", {A{S34}});
  check_finite_differences("(lambda (a b) (cross-entropy a (softmax b)))", {A{S34}, A{S34}});
  check_finite_differences("(lambda (a b) (mse a b))", {A{S34}, A{S34}});
  // Numbers, rank-0 tensors and unused arguments.
  check_finite_differences("(lambda (x y) (+ (* x y) (/ (exp x) y) (- (log y)) (expt x 3)))",
                           {A{N}, A{N, true}});
  check_finite_differences("(lambda (s a) (tensor-sum (* s a)))", {A{{}}, A{S23}});
}

// Walks the op table (runtime/op_table.h), so a new differentiable row's derivative
// (runtime/elementwise_formulas.h) is checked without an edit here. The inputs,
// 0.5 e^a with a in [-1, 1), lie in (0.18, 1.36): every row's domain, no kink and
// no pole (tan's is at 1.57). Signed inputs and kinks are the previous test's.
TEST_CASE("autodiff: every differentiable row's derivative agrees with central finite differences",
          "[autodiff]") {
  auto name = [](const char *builtin, const char *generic) { return builtin ? builtin : generic; };
  int checked = 0;
  for (const UnaryOpRow &r : kUnaryOps) {
    const char *op = name(r.builtin, r.generic);
    if (!r.differentiable || !op) continue;  // reciprocal: "/" above
    check_finite_differences(std::string("(lambda (a w) (tensor-sum (* w (") + op + " (* 0.5 (exp a))))))",
                             {A{S34}, A{S34}});
    checked++;
  }
  for (const BinaryOpRow &r : kBinaryOps) {
    const char *op = name(r.builtin, r.generic);
    if (!r.differentiable || !op) continue;
    check_finite_differences(
        std::string("(lambda (a b w) (tensor-sum (* w (") + op + " (* 0.5 (exp a)) (* 0.5 (exp b))))))",
        {A{S34}, A{S4}, A{S34}});
    checked++;
  }
  CHECK(checked >= 20);
}

TEST_CASE("autodiff: unused arguments get zeros of their shape, rank-0 tensors get rank-0 gradients",
          "[autodiff]") {
  Value r =
      eval_string("(graph-grad (lambda (x y z) (* x 2)) 1.5 (tensor 5.0) (ones '(2 3)))", "autodiff-test");
  CHECK(write_string(r) == "(3.0 2.0 #<tensor scalar [0.0]> #<tensor 2x3 [0.0 0.0 0.0 0.0 0.0 0.0]>)");
  r = eval_string("(graph-grad (lambda (s) (* s s)) (tensor 3.0))", "autodiff-test");
  CHECK(write_string(r) == "(9.0 #<tensor scalar [6.0]>)");
  r = eval_string("(graph-grad (lambda (x) (relu x)) 0.0)", "autodiff-test");
  CHECK(write_string(r) == "(0.0 0.0)");  // relu'(0) = 0
  r = eval_string("(graph-grad (lambda (a) (tensor-max a)) (tensor '(1.0 3.0 3.0 2.0)))", "autodiff-test");
  CHECK(write_string(r) == "(3.0 #<tensor 4 [0.0 1.0 0.0 0.0]>)");  // the first maximal element
}

TEST_CASE("autodiff: graph-grad's values equal the same computation done eagerly, bit for bit",
          "[autodiff]") {
  eval_string(R"(
    (define ad-x (tensor-randn '(8 6) 1)) (define ad-w (tensor-randn '(6 5) 2)) (define ad-t (tensor-randn '(8 5) 3))
    (define (ad-loss x w b t nn) (/ (tensor-sum (square (- (+ (matmul x w) b) t))) nn))
    (define ad-r (graph-grad ad-loss ad-x ad-w 0.25 ad-t 40))
    (define ad-d (- (+ (matmul ad-x ad-w) 0.25) ad-t))
    (define ad-gd (* (/ 1.0 40) (* 2.0 ad-d))))",
              "autodiff-test");
  CHECK(eval_string("(equal? (car ad-r) (ad-loss ad-x ad-w 0.25 ad-t 40))", "t") == TRUE_V);
  CHECK(eval_string("(equal? (caddr ad-r) (matmul (transpose ad-x) ad-gd))", "t") == TRUE_V);
  CHECK(eval_string("(equal? (cadr ad-r) (matmul ad-gd (transpose ad-w)))", "t") == TRUE_V);
  CHECK(eval_string("(equal? (list-ref ad-r 4) (- ad-gd))", "t") == TRUE_V);
}

namespace {

struct TorchCase {
  const char *name;
  double loss;
  std::vector<std::vector<double>> grads;
};

// Output of tests/data/graph_torch_refs.py (PyTorch 1.13, float64 autograd).
const TorchCase kTorchCases[] = {
    {"bench",
     2.6673195959595963,
     {
         {-0.25221818181818179,
          -0.17803636363636363,
          -0.10385454545454546,
          -0.029672727272727257,
          0.04450909090909095,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0.99103030303030337,
          1.2387878787878792,
          -1.015806060606061,
          -0.76804848484848509,
          -0.52029090909090936},
         {-0.33381818181818185, 0, 0.12387878787878803, -0.059345454545454555, 0, 1.0405818181818187,
          0.21512727272727275, 0, -0.54506666666666681, -0.25963636363636361, 0, 0.37163636363636382,
          0.014836363636363649, 0, -1.2140121212121215},
         {1.6096969696969701},
         {-0.37090909090909091, 0.50505050505050508, -0.78787878787878796, -0.040404040404040442,
          0.70707070707070707, -0.58585858585858597, 0.16161616161616155, 0.90909090909090906,
          -0.38383838383838387, 0.36363636363636376, -0.92929292929292939, -1.2387878787878792},
         {-1.3471311090705032},
     }},
    {"mlp",
     1.1014448086629602,
     {
         {0.0081314094909457624, 0.071476821378900157,  -0.02784104472323904,  0.004346652464384114,
          0.014182400303901593,  -0.093901925603463665, -0.015594922380661447, 0.019712750821292417,
          0.087351239446787327,  0.078045602709365766,  -0.011566176019499746, -0.07400336145390983,
          -0.016535398768421489, 0.084537454447338747,  0.015248879144436876,  0.023931433424990045,
          -0.095302857198234767, -0.11701008370090316,  0.057399282079522634,  0.065470595426528916,
          -0.034942173142469141, 0.1275914003285317,    0.029767130329794798,  -0.046416465118365599},
         {-0.03626427197003379,   -0.0085254455742902191, 0.025667936771682817,  0.12186075130079702,
          0.087112063517479785,   0.029119047052253214,   0.0098588003700247825, 0.0084335457850073653,
          -0.035236563241803812,  -0.026982972084947449,  -0.06986009382319508,  -0.037601999445510417,
          -0.0046740852098550792, 0.0034420554677425733,  0.020957564508414923,  -0.035634489501239305,
          -0.042305201580496943,  -0.026978100190187315,  -0.022149695785095916, 0.025904541563040739},
         {0.11991395658054174, 0.096600003612077295, 0.065577122176286487, -0.024234939734644287,
          -0.097939840088867053},
         {-0.12147635274572592, -0.0026704524903756431, 0.12414680523610155, 0.040848425588498202,
          0.062162431947829853, -0.10301085753632806, 0.08147083437804814, -0.10791048650902801,
          0.026439652130979874, -0.059350695372945385, -0.050576654309332163, 0.10992734968227756,
          0.044553767291877239, 0.062246697745508214, -0.10680046503738545},
         {0.0011384463956971846, 0.11635550606678308, -0.11749395246248023},
         {0.11152044064600347, 0.21229907490370176, 0.261643393959829, 0.25076261700621494,
          0.092803709189506214, 0.26423695633336469, 0.16388633406848777, 0.1455923336173553,
          0.26132918008369926, 0.23456524933968725, 0.10350806172997636, 0.25400039637672112,
          0.1579571270779464, 0.1576076372055864, 0.24938398851316293, 0.22064867417055423,
          0.1148381951894344, 0.24361859219847762},
     }},
    {"elementwise",
     2.4496069253401518,
     {
         {0.55246891969475087, 0.11174551383477152, 0.49909709281130638, 0.38225811308097379,
          0.92362403340900401, 0.3754788603131764, 0.047159553808182819, 0.73975324862532255,
          0.69763398140754551, 0.04502343763574565, 0.54690940495280371, 0.33517415321602995},
         {-0.79733727969254586, -0.37706982305840087, -1.276004642643521, 0.60743380172047234},
     }},
    {"shapes",
     6.6588166666666666,
     {
         {-2.3291666666666662,  -2.3291666666666662,  -1.3291666666666664,  -2.3291666666666662,
          1.2308333333333334,   2.2308333333333334,   1.2308333333333334,   2.2308333333333334,
          1.7016666666666664,   0.75083333333333313,  0.75083333333333313,  0.75083333333333313,
          -0.23416666666666663, 0.76583333333333337,  -0.23416666666666663, 0.76583333333333337,
          0.79083333333333361,  -0.20916666666666639, 0.79083333333333361,  -0.20916666666666639,
          -1.1941666666666668,  -1.1941666666666668,  -1.1941666666666668,  -1.1941666666666668},
         {-0.29499999999999998,
          -0.29499999999999998,
          -0.29499999999999998,
          -0.29499999999999998,
          -0.29499999999999998,
          0.14000000000000001,
          0.14000000000000001,
          0.14000000000000001,
          0.14000000000000001,
          0.14000000000000001,
          0.069999999999999979,
          0.069999999999999979,
          0.069999999999999979,
          0.069999999999999979,
          0.069999999999999979,
          0,
          0,
          0,
          0,
          0,
          -0.069999999999999951,
          -0.069999999999999951,
          -0.069999999999999951,
          -0.069999999999999951,
          -0.069999999999999951,
          -0.14000000000000001,
          -0.14000000000000001,
          -0.14000000000000001,
          -0.14000000000000001,
          -0.14000000000000001},
     }},
    {"select",
     10.158399999999999,
     {
         {0.32000000000000006, 1.0600000000000001, 2.7999999999999998, 0.52000000000000002,
          2.2599999999999998, 3, 0.71999999999999997, 2.46, 4, 0.92000000000000004, 2.6600000000000001, 0.38},
         {1.1000000000000001, 1.8399999999999999, 2.5800000000000001, 1.3, 2.04, 2.7800000000000002, 1.5,
          2.2400000000000002, 0, 1.7, 2.4399999999999999, 1.1600000000000001},
     }},
    {"numbers",
     -0.34762441861297733,
     {
         {-0.17199268201469775},
         {-1.8909146348373502},
     }},
};

struct TorchSource {
  const char *src;
  std::vector<ArgDesc> args;
};

// The same functions as graph_torch_refs.py, in Kiln.
TorchSource torch_source(const std::string &name) {
  if (name == "bench")
    return {"(lambda (x w b t nn) (/ (tensor-sum (square (- (relu (+ (matmul x w) b)) t))) nn))",
            {A{{4, 5}}, A{{5, 3}}, A{N}, A{{4, 3}}, A{N, true}}};
  if (name == "mlp")
    return {R"((lambda (x w1 b1 w2 b2 y)
                 (let* ((h (tensor-tanh (+ (matmul x w1) b1)))
                        (z (+ (matmul h w2) b2))
                        (s (- z (tensor-max z 1 #t)))
                        (logp (- s (tensor-log (tensor-sum (tensor-exp s) 1 #t)))))
                   (- (tensor-mean (tensor-sum (* y logp) 1))))))",
            {A{{6, 4}}, A{{4, 5}}, A{{1, 5}}, A{{5, 3}}, A{{1, 3}}, A{{6, 3}, false, true}}};
  if (name == "elementwise")
    return {R"((lambda (a b)
                 (tensor-sum (+ (* (tensor-sigmoid a) (exp (sin b))) (/ (sqrt (+ (* a a) 1)) (+ 2 (cos b)))
                                (- (* (tensor-tanh a) (abs b)) (tensor-pow (+ a 2) b)) (/ (+ a 3))))))",
            {A{S34}, A{S4}}};
  if (name == "shapes")
    return {R"((lambda (a w)
                 (+ (tensor-sum (tensor-mean (matmul (reshape (transpose a '(2 0 1)) '(4 6)) w) 0))
                    (tensor-sum (tensor-max a 1)) (* (tensor-mean a) (tensor-max a))
                    (tensor-sum (square (tensor-sum a 2))))))",
            {A{{2, 3, 4}}, A{{6, 5}}}};
  if (name == "select")
    return {R"((lambda (a b) (+ (tensor-sum (if (< a b) (* a b) (- a b))) (tensor-sum (* (max a b) 2))
                                 (tensor-sum (min a b)) (tensor-sum (relu a)))))",
            {A{S34}, A{S34}}};
  return {"(lambda (x y) (+ (* x y) (/ (exp x) y) (- (log y)) (* x x)))", {A{N}, A{N, true}}};
}

}  // namespace

TEST_CASE("autodiff: gradients agree with PyTorch float64 autograd to 1e-12 relative", "[autodiff]") {
  for (const TorchCase &c : kTorchCases) {
    INFO(c.name);
    TorchSource ts = torch_source(c.name);
    ValueVec args = {eval_string(ts.src, "autodiff-test")};
    for (size_t k = 0; k < ts.args.size(); k++) args.push_back(make_arg(ts.args[k], int(k)));
    Value r = call("graph-grad", args);
    CHECK(std::fabs(number_as_double(car(r)) - c.loss) <= 1e-12 * std::fabs(c.loss));
    Value g = cdr(r);
    for (size_t k = 0; k < c.grads.size(); k++, g = cdr(g)) {
      std::vector<double> got = elements(car(g));
      REQUIRE(got.size() == c.grads[k].size());
      double scale = 0;
      for (double x : c.grads[k]) scale = std::max(scale, std::fabs(x));
      for (size_t i = 0; i < got.size(); i++) {
        INFO("gradient " << k + 1 << " element " << i << ": got " << got[i] << " torch " << c.grads[k][i]);
        // Relative to the element, or to the gradient's largest element when the
        // reference is (near) zero, where a relative error means nothing.
        CHECK(std::fabs(got[i] - c.grads[k][i]) <= 1e-12 * std::max(std::fabs(c.grads[k][i]), 1e-3 * scale));
      }
    }
  }
}

// Regression (differential fuzz, seed 9009): a rule passed `g[a].shape` by
// reference next to a call that records a node; when that call grew g.nodes,
// the reference pointed into freed memory and the gradient took a stale shape
// (a NaN or 777.0 from a recycled buffer in one element). The node table is
// made exactly full before each rule so its first recording reallocates, and
// glibc's M_PERTURB fills freed memory, so a stale read is seen in every build.
TEST_CASE("autodiff: a rule that grows the node table keeps its operand's shape", "[autodiff]") {
  struct Case {
    Op op;
    int axis;  // -1: whole-tensor reduction
  };
  mallopt(M_PERTURB, 0x5a);
  for (Case c : {Case{Op::MeanAxis, 1}, Case{Op::SumAxis, 1}, Case{Op::MaxAxis, 1}, Case{Op::Mean, -1},
                 Case{Op::Sum, -1}, Case{Op::Max, -1}}) {
    INFO("op " << op_name(c.op));
    Graph g;
    Shape xs = Shape::of({1, 2});
    int32_t x = g.param(0, ArgSpec{xs, false});
    // Constants the rules ask for already exist, so the first recording is a new node.
    for (double k : {0.0, 1.0, 2.0}) g.constant(k, true);
    // Unused constants make the table bigger than glibc's tcache chunks, which
    // M_PERTURB does not fill.
    for (int k = 0; k < 40; k++) g.constant(100.0 + k, true);
    int32_t r = c.axis < 0 ? g.reduce_all(c.op, x) : g.reduce_axis(c.op, x, c.axis, false);
    int32_t loss = c.axis < 0 ? r : g.reduce_all(Op::Sum, r);
    if (c.axis >= 0) g.broadcast_to(g.constant(1.0, true), g[r].shape);  // the Sum rule's node
    g.nodes.shrink_to_fit();
    std::vector<int32_t> grads = append_gradients(g, loss);
    REQUIRE(grads.size() == 1);
    CHECK(g[grads[0]].shape == xs);
    CHECK(g[grads[0]].op != Op::SumTo);  // already the param's shape: nothing summed back
  }
  mallopt(M_PERTURB, 0);
}

// test_syntax_rules.cpp — syntax-rules macros (runtime/syntax_rules.cpp,
// runtime/macro_expand.cpp) through the public evaluator: matching at each
// ellipsis depth, literals, the hygiene the implementation promises (binders a
// template introduces are renamed; a top-level macro's free identifiers keep
// their top-level meaning), and the errors for bad rules and failed matches.
// tests/golden/syntax/ covers the same features as whole programs; these cases
// look at expansions and messages directly.
#include <catch2/catch.hpp>
#include <string>

#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/printer.h"

using namespace kiln;

namespace {

Value eval_all(const std::string &src) { return eval_string(src, "syntax-rules-test"); }

std::string run(const std::string &src) { return write_string(eval_all(src)); }

// The message of the error evaluating src raises (analysis included), or "no error".
std::string error_of(const std::string &src) {
  try {
    eval_all(src);
  } catch (LispError &) {
    return error_message_of(g_raised);
  }
  return "no error";
}

// The one-step-or-more expansion of the quoted form `form`, written.
std::string expand(const std::string &form) { return write_string(macroexpand(eval_all("'" + form))); }

}  // namespace

TEST_CASE("syntax-rules: ellipsis at depth 0, 1 and 2", "[syntax_rules]") {
  eval_all(
      "(define-syntax sr-count (syntax-rules () ((_) 0) ((_ x) 1) ((_ x y ...) (+ 1 (sr-count y ...)))))");
  CHECK(run("(sr-count)") == "0");
  CHECK(run("(sr-count a)") == "1");
  CHECK(run("(sr-count a b c d)") == "4");
  // Zero repetitions of an ellipsis expand to nothing.
  eval_all("(define-syntax sr-list (syntax-rules () ((_ x ...) '(x ...))))");
  CHECK(expand("(sr-list)") == "(quote ())");
  CHECK(run("(sr-list 1 2 3)") == "(1 2 3)");
  // Depth 2: each group keeps its own repetitions.
  eval_all("(define-syntax sr-groups (syntax-rules () ((_ (k v ...) ...) '((k (v ...)) ...))))");
  CHECK(run("(sr-groups (a 1 2) (b) (c 3))") == "((a (1 2)) (b ()) (c (3)))");
  // `x ... ...` flattens one level per extra ellipsis.
  eval_all("(define-syntax sr-flat (syntax-rules () ((_ (x ...) ...) '(x ... ...))))");
  CHECK(run("(sr-flat (1 2) () (3))") == "(1 2 3)");
  // Elements after an ellipsis match the end of the form.
  eval_all("(define-syntax sr-ends (syntax-rules () ((_ a m ... z) '(a z (m ...)))))");
  CHECK(run("(sr-ends 1 2 3 4)") == "(1 4 (2 3))");
  CHECK(run("(sr-ends 1 4)") == "(1 4 ())");
  CHECK(error_of("(sr-ends 1)") == "sr-ends: no syntax-rules pattern matches (sr-ends 1)");
  // A dotted tail binds the rest of the form.
  eval_all("(define-syntax sr-tail (syntax-rules () ((_ a . rest) 'rest)))");
  CHECK(run("(sr-tail 1 2 3)") == "(2 3)");
  CHECK(run("(sr-tail 1)") == "()");
}

TEST_CASE("syntax-rules: literals, wildcards, vectors and constants in patterns", "[syntax_rules]") {
  eval_all(
      "(define-syntax sr-arrow (syntax-rules (=>) ((_ a => b) '(arrow a b)) ((_ a b c) '(plain a b c))))");
  CHECK(run("(sr-arrow 1 => 2)") == "(arrow 1 2)");
  // A literal matches only itself; anything else falls to the next rule.
  CHECK(run("(sr-arrow 1 -> 2)") == "(plain 1 -> 2)");
  // `_` matches anything and binds nothing.
  eval_all("(define-syntax sr-second (syntax-rules () ((_ _ b _) 'b)))");
  CHECK(run("(sr-second 1 2 3)") == "2");
  // Vector patterns, with an ellipsis inside.
  eval_all("(define-syntax sr-vec (syntax-rules () ((_ #(a b ...)) '(a #(b ...)))))");
  CHECK(run("(sr-vec #(1 2 3))") == "(1 #(2 3))");
  CHECK(error_of("(sr-vec (1 2 3))").find("no syntax-rules pattern matches") != std::string::npos);
  // Numbers and strings in a pattern match equal data.
  eval_all("(define-syntax sr-const (syntax-rules () ((_ 0) 'zero) ((_ \"s\") 'string) ((_ x) 'other)))");
  CHECK(run("(list (sr-const 0) (sr-const \"s\") (sr-const 1))") == "(zero string other)");
  // A custom ellipsis identifier leaves `...` an ordinary symbol.
  eval_all("(define-syntax sr-custom (syntax-rules ::: () ((_ a :::) '(a ::: ...))))");
  CHECK(run("(sr-custom 1 2)") == "(1 2 ...)");
  // (... ...) puts a literal ellipsis into the expansion.
  eval_all("(define-syntax sr-escape (syntax-rules () ((_ a) '(a (... ...)))))");
  CHECK(run("(sr-escape 1)") == "(1 ...)");
}

TEST_CASE("syntax-rules: binders a template introduces are renamed", "[syntax_rules]") {
  eval_all("(define-syntax sr-or2 (syntax-rules () ((_ a b) (let ((t a)) (if t t b)))))");
  CHECK(run("(let ((t 5)) (sr-or2 #f t))") == "5");
  // The expansion's `t` prints as t but is a fresh symbol, not the user's.
  Value e = macroexpand(eval_all("'(sr-or2 #f t)"));
  Value bound = car(car(car(cdr(e))));  // (let ((t a)) ...): the binding's name
  CHECK(write_string(bound) == "t");
  CHECK(bound != intern("t"));
  // One name per expansion: both uses of the binder in the body are that symbol.
  Value body = car(cdr(cdr(e)));  // (if t t b)
  CHECK(car(cdr(body)) == bound);
  CHECK(car(cdr(cdr(body))) == bound);
  // Two expansions get different names.
  Value e2 = macroexpand(eval_all("'(sr-or2 #f t)"));
  CHECK(car(car(car(cdr(e2)))) != bound);
  // Quoted template symbols stay the plain symbols.
  eval_all("(define-syntax sr-quoted (syntax-rules () ((_) (let ((t 1)) 't))))");
  CHECK(run("(eq? (sr-quoted) 't)") == "#t");
}

TEST_CASE("syntax-rules: a top-level macro's free identifiers mean their top-level bindings",
          "[syntax_rules]") {
  eval_all("(define-syntax sr-mk (syntax-rules () ((_ x) (list x))))");
  CHECK(run("(let ((list vector)) (sr-mk 1))") == "(1)");
  // The user's own `list` in an argument is still the user's.
  CHECK(run("(let ((list vector)) (sr-mk (list 1)))") == "(#(1))");
  // Special forms and `else` too.
  eval_all("(define-syntax sr-if (syntax-rules () ((_ c a b) (if c a b))))");
  CHECK(run("(let ((if list)) (sr-if #f 1 2))") == "2");
  eval_all("(define-syntax sr-sign (syntax-rules () ((_ x) (cond ((> x 0) 'pos) (else 'other)))))");
  CHECK(run("(let ((else #f)) (sr-sign -1))") == "other");
  // set! in a template reaches the global, not the local of the same name.
  eval_all("(define sr-counter 0)");
  eval_all("(define-syntax sr-bump! (syntax-rules () ((_) (set! sr-counter (+ sr-counter 1)))))");
  CHECK(run("(let ((sr-counter 100)) (sr-bump!) sr-counter)") == "100");
  CHECK(run("sr-counter") == "1");
  // So do a local macro's: the binding where it was defined, not the use's.
  CHECK(run("(let ((y 1)) (let-syntax ((get (syntax-rules () ((_) y)))) (let ((y 2)) (get))))") == "1");
}

TEST_CASE("syntax-rules: errors name the macro and what was wrong", "[syntax_rules]") {
  eval_all("(define-syntax sr-two (syntax-rules () ((_ a b) (list a b))))");
  CHECK(error_of("(sr-two 1)") == "sr-two: no syntax-rules pattern matches (sr-two 1)");
  CHECK(error_of("(sr-two 1 2 3)") == "sr-two: no syntax-rules pattern matches (sr-two 1 2 3)");
  // Bad transformers, refused when the macro is defined.
  CHECK(error_of("(define-syntax sr-bad (syntax-rules))") == "syntax-rules: missing literals list");
  CHECK(error_of("(define-syntax sr-bad (syntax-rules () (_ x)))") == "syntax-rules: bad rule (_ x)");
  CHECK(error_of("(define-syntax sr-bad (syntax-rules () ((_ x))))") == "syntax-rules: bad rule ((_ x))");
  CHECK(error_of("(define-syntax sr-bad 5)") ==
        "define-syntax: transformer must be syntax-rules or a procedure");
  CHECK(error_of("(define-syntax sr-bad)") == "define-syntax: bad syntax in (define-syntax sr-bad)");
  // Template errors surface when the macro is used.
  eval_all("(define-syntax sr-noell (syntax-rules () ((_ x ...) '(x))))");
  CHECK(error_of("(sr-noell 1 2)") == "sr-noell: pattern variable x used without an ellipsis");
  eval_all("(define-syntax sr-nopat (syntax-rules () ((_ x) '(y ...))))");
  CHECK(error_of("(sr-nopat 1)") == "sr-nopat: no pattern variable before an ellipsis in the template");
  // Keywords of a macro are not variables.
  CHECK(error_of("(let-syntax ((m (syntax-rules () ((_) 1)))) m)") == "m: macro used as a variable");
}

TEST_CASE("syntax-rules: a macro that expands forever can be interrupted", "[syntax_rules]") {
  eval_all("(define-syntax sr-loop (syntax-rules () ((_) (sr-loop))))");
  g_interrupt = 1;  // as if Ctrl-C arrived: the next expansion step polls it
  CHECK_THROWS_AS(eval_all("(sr-loop)"), InterruptThrow);
  CHECK(g_interrupt == 0);
}

TEST_CASE("syntax-rules: a string before the rules documents the macro (as in Guile)", "[syntax_rules]") {
  eval_all("(define-syntax sr-doc (syntax-rules () \"Lists A twice.\" ((_ a) (list a a))))");
  CHECK(run("(sr-doc 3)") == "(3 3)");
  CHECK(expand("(sr-doc x)") == "(list x x)");
  // With a custom ellipsis too; a string after the first rule is still a bad rule.
  eval_all("(define-syntax sr-doc2 (syntax-rules ::: () \"All of them.\" ((_ x :::) (list x :::))))");
  CHECK(run("(sr-doc2 1 2)") == "(1 2)");
  CHECK(error_of("(define-syntax sr-bad (syntax-rules () ((_ a) a) \"late\"))") ==
        "syntax-rules: bad rule \"late\"");
}

TEST_CASE("syntax-rules: aliases of a macro-defining macro's inner identifiers", "[syntax_rules]") {
  // The inner macro's pattern variable comes from the outer template: the
  // user's `v` passed in is a different identifier, so it is not substituted.
  eval_all(
      "(define-syntax sr-def-const (syntax-rules () ((_ n r) (define-syntax n (syntax-rules () ((_ v) "
      "'r))))))");
  eval_all("(sr-def-const sr-const v)");
  CHECK(run("(sr-const 1)") == "v");
  // A literal the outer template introduces still matches by binding.
  eval_all(
      "(define-syntax sr-def-else (syntax-rules () ((_ n) (define-syntax n (syntax-rules (else) ((_ else) "
      "'yes) "
      "((_ x) 'no))))))");
  eval_all("(sr-def-else sr-is-else)");
  CHECK(run("(list (sr-is-else else) (sr-is-else other) (let ((else 1)) (sr-is-else else)))") ==
        "(yes no no)");
}

TEST_CASE("syntax-rules: hygiene inside a quasiquote's unquotes, not its data", "[syntax_rules]") {
  eval_all("(define-syntax sr-qq (syntax-rules () ((_ x) `(list ,x ,(list x) ,@(list 1)))))");
  // The unquoted (list x) is the template's list; the quoted `list` is the plain symbol.
  CHECK(run("(let ((list vector)) (sr-qq 3))") == "(list 3 (3) 1)");
  CHECK(run("(eq? (car (sr-qq 0)) 'list)") == "#t");
  // A binder is renamed where it is code, and left alone in the data.
  eval_all("(define-syntax sr-qq-let (syntax-rules () ((_ e) (let ((tmp e)) `(tmp ,tmp)))))");
  CHECK(run("(let ((tmp 5)) (sr-qq-let (+ tmp 1)))") == "(tmp 6)");
  // Nested quasiquotes: only the innermost-level unquote is code.
  CHECK(run("(let-syntax ((m (syntax-rules () ((_ x) `(a `(b ,(c ,(car x)))))))) (let ((car cdr)) (m '(1 "
            "2))))") == "(a (quasiquote (b (unquote (c 1)))))");
}

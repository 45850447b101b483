// test_tree.cpp — trees as traced arguments (compiler/tree.*), named ones above
// all: keys are structure, so they appear in the skeleton but never among the
// leaves; flattening and rebuilding round-trip; and matching a call against a
// kernel's layout refuses every value whose flattening would not line up with
// the skeleton's leaves (an entry where the skeleton has a plain tree would
// flatten to fewer leaves than the kernel expects).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "compiler/tree.h"
#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/object.h"
#include "runtime/printer.h"

using namespace kiln;

namespace {

Value lisp(const char *src) { return eval_string(src, "tree-test"); }

template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (LispError &) {
    return error_message_of(g_raised);
  }
  return "<no error>";
}

std::vector<Value> leaves_of(Value tree) {
  int64_t n = tree_check("test", "argument 1", tree, false);
  std::vector<Value> out(size_t(n + 1));
  int64_t k = 0;
  tree_flatten(tree, out.data(), k);
  out.resize(size_t(k));
  return out;
}

}  // namespace

TEST_CASE("tree: keys are structure, not leaves", "[tree]") {
  Value t = lisp("'((w . 1.5) (b 2.5 3.5) (inner . ((x . 4.5))))");
  std::vector<Value> leaves = leaves_of(t);
  REQUIRE(leaves.size() == 4);
  CHECK(write_string(leaves[0]) == "1.5");
  CHECK(write_string(leaves[3]) == "4.5");
  Value skel = tree_skeleton(t);
  CHECK(write_string(skel) == "((w . #t) (b #t #t) (inner (x . #t)))");
  CHECK(skeleton_leaf_count(skel) == 4);
  int64_t k = 0;
  Value back = tree_rebuild(skel, leaves.data(), k);
  CHECK(k == 4);
  CHECK(write_string(back) == write_string(t));
  CHECK(is_named_branch(t));
  CHECK(is_tree_entry(lisp("'(w . 1.0)")));
  CHECK_FALSE(is_tree_entry(lisp("'(1.0 w)")));
}

TEST_CASE("tree: layouts of named arguments number the leaves across arguments", "[tree]") {
  Value args[] = {lisp("'((a . 1.0) (b . #(2.0 3.0)))"), lisp("4.0"), lisp("'((c . ()))")};
  TreeLayout *t = layout_arguments("test", 3, args, 0, false);
  CHECK_FALSE(t->flat);
  CHECK(t->nleaves() == 4);
  CHECK(t->first_leaf[1] == 3);
  CHECK(t->first_leaf[2] == 4);
  CHECK(t->first_leaf[3] == 4);
  std::vector<Value> flat(5);
  flatten_arguments(*t, args, flat.data());
  CHECK(write_string(flat[1]) == "2.0");
  CHECK(write_string(flat[3]) == "4.0");
  // A grad build's results: the loss, then each argument's gradient with its names.
  Value outs[] = {lisp("10.0"), lisp("11.0"), lisp("12.0"), lisp("13.0"), lisp("14.0")};
  t->grad = true;
  CHECK(write_string(assemble_results(*t, outs)) == "(10.0 ((a . 11.0) (b . #(12.0 13.0))) 14.0 ((c)))");
}

TEST_CASE("tree: malformed association lists are refused with what is wrong", "[tree]") {
  auto check = [](const char *src) {
    return error_of([&] { tree_check("who", "argument 1", lisp(src), false); });
  };
  CHECK(check("'((a . 1.0) 2.0)") ==
        "who: argument 1: entry 2 of an association list must be (KEY . TREE) with a symbol KEY, got 2.0");
  CHECK(check("'(2.0 (a . 1.0))") ==
        "who: argument 1: a list mixes (KEY . TREE) entries with other trees, got (2.0 (a . 1.0))");
  CHECK(check("'((a . 1.0) (a . 2.0))") == "who: argument 1: the key a appears twice in an association list");
  CHECK(check("'(a . 1.0)") ==
        "who: argument 1: a (KEY . TREE) entry must be an element of an association list, got (a . 1.0)");
  CHECK(check("(vector '(a . 1.0))") ==
        "who: argument 1: a (KEY . TREE) entry must be an element of an association list, got (a . 1.0)");
  CHECK(check("'((a . (1.0 . 2.0)))") ==
        "who: argument 1: a tree cannot be an improper list, got (1.0 . 2.0)");
  CHECK(check("'((a . \"s\"))") == "who: argument 1, leaf 1: expected a number or a tensor, got \"s\"");
}

TEST_CASE("tree: matching a call checks keys, their order, and entries where none belong", "[tree]") {
  Value arg = lisp("'((a . 1.0) (b 2.0 3.0))");
  TreeLayout *t = layout_arguments("test", 1, &arg, 0, false);
  auto match = [&](const char *src) {
    Value v = lisp(src);
    return error_of([&] { match_arguments("kernel k", *t, 1, &v); });
  };
  CHECK(match("'((a . 5.0) (b 6.0 7.0))") == "<no error>");
  CHECK(match("'((b . 5.0) (a 6.0 7.0))") ==
        "kernel k: argument 1: expected an association list with keys (a b), got ((b . 5.0) (a 6.0 7.0))");
  CHECK(match("'((a . 5.0) (c 6.0 7.0))") ==
        "kernel k: argument 1: expected an association list with keys (a b), got ((a . 5.0) (c 6.0 7.0))");
  CHECK(match("'(5.0 (6.0 7.0))") ==
        "kernel k: argument 1: expected an association list with keys (a b), got (5.0 (6.0 7.0))");
  CHECK(match("'((a . 5.0) (b 6.0 7.0 8.0))") ==
        "kernel k: argument 1: expected a list of 2 trees, got (6.0 7.0 8.0)");
  // The skeleton's plain list (2.0 3.0) must not be matched by an entry: (z 6.0 7.0)
  // flattens to two leaves, not three, and would misalign every leaf after it.
  Value plain = lisp("'(1.0 (2.0 3.0 4.0))");
  TreeLayout *tp = layout_arguments("test", 1, &plain, 0, false);
  Value bad = lisp("'(1.0 (z 6.0 7.0))");
  CHECK(error_of([&] { match_arguments("kernel k", *tp, 1, &bad); }) ==
        "kernel k: argument 1: expected a list of 3 trees, got the (KEY . TREE) entry (z 6.0 7.0)");
}

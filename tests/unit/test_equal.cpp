// Unit tests for runtime/equal.h: eqv?/equal? semantics and the invariant
// equal(a, b) => equal_hash(a) == equal_hash(b).
#include <catch2/catch.hpp>

#include "runtime/equal.h"
#include "runtime/object.h"
#include "stdlib/builtins.h"

using namespace kiln;

static Value nums(std::initializer_list<int64_t> xs) {
  Value r = NIL;
  for (auto it = std::rbegin(xs); it != std::rend(xs); ++it) r = cons(make_int(*it), r);
  return r;
}

TEST_CASE("eqv? compares integers by value and floats by bits", "[equal]") {
  gc_init();
  Value big1 = make_int(int64_t(1) << 60), big2 = make_int(int64_t(1) << 60);
  REQUIRE(has_type(big1, T_BIGNUM));
  CHECK_FALSE(eq(big1, big2));
  CHECK(eqv(big1, big2));
  CHECK_FALSE(eqv(big1, make_int((int64_t(1) << 60) + 1)));
  CHECK(eqv(make_int(7), make_int(7)));
  CHECK_FALSE(eqv(make_int(1), make_double(1.0)));
  CHECK(eqv(make_double(std::nan("")), make_double(-std::nan(""))));
  CHECK_FALSE(eqv(make_double(0.0), make_double(-0.0)));
  CHECK(eqv(make_double(2.5), make_double(2.5)));
  CHECK(eqv(make_char('a'), make_char('a')));
  CHECK_FALSE(eqv(make_string("a"), make_string("a")));
  CHECK(eqv_hash(big1) == eqv_hash(big2));
}

TEST_CASE("equal? is structural on strings, pairs and vectors", "[equal]") {
  gc_init();
  CHECK(equal(make_string("abc"), make_string("abc")));
  CHECK_FALSE(equal(make_string("abc"), make_string("abd")));
  CHECK_FALSE(equal(make_string("ab"), make_string("abc")));
  CHECK(equal(nums({1, 2, 3}), nums({1, 2, 3})));
  CHECK_FALSE(equal(nums({1, 2, 3}), nums({1, 2})));
  CHECK_FALSE(equal(nums({1, 2}), nums({1, 2, 3})));
  CHECK(equal(cons(make_int(1), make_int(2)), cons(make_int(1), make_int(2))));
  CHECK_FALSE(equal(cons(make_int(1), make_int(2)), cons(make_int(1), make_int(3))));
  Value v1 = make_vector(2, nums({1, 2})), v2 = make_vector(2, nums({1, 2}));
  CHECK(equal(v1, v2));
  as<Vector>(v2)->items[1] = make_string("x");
  CHECK_FALSE(equal(v1, v2));
  CHECK_FALSE(equal(make_vector(1, NIL), make_vector(2, NIL)));
  CHECK_FALSE(equal(nums({1}), make_vector(1, make_int(1))));
  CHECK(equal(make_double(std::nan("")), make_double(std::nan(""))));
  CHECK_FALSE(equal(make_double(0.0), make_double(-0.0)));
}

TEST_CASE("equal? walks a million-element list without deep recursion", "[equal]") {
  gc_init();
  Value a = NIL, b = NIL;
  for (int i = 0; i < 1000000; i++) {
    a = cons(make_int(i), a);
    b = cons(make_int(i), b);
  }
  CHECK(equal(a, b));
  CHECK(equal_hash(a) == equal_hash(b));
  as<Pair>(b)->car = make_int(-1);
  CHECK_FALSE(equal(a, b));
}

TEST_CASE("equal_hash agrees with equal? on equal values", "[equal]") {
  gc_init();
  Value samples[][2] = {
      {make_string("hello"), make_string("hello")},
      {make_string(""), make_string("")},
      {nums({1, 2, 3}), nums({1, 2, 3})},
      {make_int(int64_t(1) << 62), make_int(int64_t(1) << 62)},
      {make_double(1.5), make_double(1.5)},
      {intern("sym"), intern("sym")},
      {make_vector(3, make_string("z")), make_vector(3, make_string("z"))},
      {cons(make_string("k"), make_double(-0.0)), cons(make_string("k"), make_double(-0.0))},
  };
  for (auto &s : samples) {
    REQUIRE(equal(s[0], s[1]));
    CHECK(equal_hash(s[0]) == equal_hash(s[1]));
  }
  // Different values usually hash differently (not required, but a constant
  // hash would make every table a linked list).
  CHECK(equal_hash(make_string("a")) != equal_hash(make_string("b")));
  CHECK(equal_hash(make_int(1)) != equal_hash(make_int(2)));
}

TEST_CASE("equal? defers to a type's registered hook", "[equal]") {
  gc_init();
  constexpr uint8_t kTestType = 250;  // unused by Kiln
  struct Boxed {
    ObjHeader h;
    int64_t n;
  };
  auto make_boxed = [](int64_t n) {
    Boxed *b = alloc_obj<Boxed>(kTestType);
    b->n = n;
    return from_ptr(b);
  };
  Value a = make_boxed(3), b = make_boxed(3), c = make_boxed(4);
  CHECK_FALSE(equal(a, b));  // no hook yet: identity only
  CHECK(equal(a, a));
  g_type_hooks[kTestType].equal = [](Value x, Value y) { return as<Boxed>(x)->n == as<Boxed>(y)->n; };
  CHECK(equal(a, b));
  CHECK_FALSE(equal(a, c));
  CHECK(equal(list2(a, make_int(1)), list2(b, make_int(1))));
  CHECK(equal_hash(a) == equal_hash(b));
  g_type_hooks[kTestType].equal = nullptr;
}

static Value last_pair(Value l) {
  while (is_pair(cdr(l))) l = cdr(l);
  return l;
}
// The list of xs whose last cdr points back to its first pair.
static Value circular(std::initializer_list<int64_t> xs) {
  Value l = nums(xs);
  as<Pair>(last_pair(l))->cdr = l;
  return l;
}

TEST_CASE("equal? terminates on circular lists and compares what they unfold to", "[equal][cycles]") {
  gc_init();
  Value l = circular({1, 2, 3});
  CHECK(equal(l, l));
  CHECK(equal(l, circular({1, 2, 3})));
  CHECK_FALSE(equal(l, circular({1, 2, 4})));
  CHECK(equal(circular({1}), circular({1, 1})));
  CHECK(equal(circular({1, 2}), circular({1, 2, 1, 2, 1, 2})));
  CHECK_FALSE(equal(circular({1, 2}), circular({2, 1})));
  CHECK(equal(circular({1, 2}), cons(make_int(1), circular({2, 1}))));
  CHECK_FALSE(equal(circular({1, 2}), nums({1, 2, 1, 2})));
  CHECK_FALSE(equal(nums({1, 2, 1, 2}), circular({1, 2})));
  // The loop entered at different points of the same cycle.
  Value x = nums({0, 1, 2, 3});
  as<Pair>(last_pair(x))->cdr = cdr(x);
  Value y = nums({0, 1, 2, 3, 1});
  as<Pair>(last_pair(y))->cdr = cdr(cdr(y));
  CHECK(equal(x, y));
}

TEST_CASE("equal? terminates on cycles through cars and vectors", "[equal][cycles]") {
  gc_init();
  Value c1 = nums({0, 2}), c2 = nums({0, 2}), c3 = list2(nums({0, 2}), make_int(2)), c4 = nums({0, 3});
  as<Pair>(c1)->car = c1;
  as<Pair>(c2)->car = c2;
  as<Pair>(car(c3))->car = c3;
  as<Pair>(c4)->car = c4;
  CHECK(equal(c1, c2));
  CHECK(equal(c1, c3));  // both unfold to T = (T 2)
  CHECK_FALSE(equal(c1, c4));
  auto self_vector = [](int64_t n) {
    Value v = make_vector(2, make_int(n));
    as<Vector>(v)->items[0] = v;
    return v;
  };
  CHECK(equal(self_vector(1), self_vector(1)));
  CHECK_FALSE(equal(self_vector(1), self_vector(2)));
  // A self-referencing vector nested in a list, deeper than the fast path's cap.
  Value a = self_vector(5), b = self_vector(5);
  for (int i = 0; i < 2000; i++) {
    a = list2(a, make_int(i));
    b = list2(b, make_int(i));
  }
  CHECK(equal(a, b));
}

TEST_CASE("equal? on large and deep acyclic data keeps its results", "[equal][cycles]") {
  gc_init();
  // A million small lists: beyond the first attempt's budget.
  Value a = NIL, b = NIL;
  for (int i = 0; i < 1000000; i++) {
    a = cons(nums({i, 1}), a);
    b = cons(nums({i, 1}), b);
  }
  CHECK(equal(a, b));
  as<Pair>(car(last_pair(b)))->car = make_int(-1);
  CHECK_FALSE(equal(a, b));
  // Nesting well past the first attempt's depth cap.
  Value d1 = intern("x"), d2 = intern("x");
  for (int i = 0; i < 20000; i++) {
    d1 = list2(d1, make_int(i));
    d2 = list2(d2, make_int(i));
  }
  CHECK(equal(d1, d2));
  CHECK_FALSE(equal(d1, list2(d2, make_int(0))));
  // Sharing that would make a tree walk exponential: 2^60 paths.
  Value s1 = nums({1}), s2 = nums({1});
  for (int i = 0; i < 60; i++) {
    s1 = list2(s1, s1);
    s2 = list2(s2, s2);
  }
  CHECK(equal(s1, s2));
  as<Pair>(car(car(s2)))->cdr = NIL;  // one shared sublist now differs
  CHECK_FALSE(equal(s1, s2));
}

TEST_CASE("equal? and equal_hash on million-element circular lists", "[equal][cycles]") {
  gc_init();
  // (0 1 2 0 1 2 ...): 999999 elements looping back, and 3 elements looping back.
  auto cycle_of = [](int n) {
    Value l = NIL;
    for (int i = n - 1; i >= 0; i--) l = cons(make_int(i % 3), l);
    as<Pair>(last_pair(l))->cdr = l;
    return l;
  };
  Value c = cycle_of(999999), d = cycle_of(3);
  CHECK(equal(c, c));
  CHECK(equal(c, d));
  CHECK(equal(d, c));
  CHECK(equal(c, cycle_of(999999)));
  CHECK(equal_hash(c) == equal_hash(d));
  CHECK_FALSE(equal(c, cycle_of(1000000)));  // 1000000 is not a multiple of 3
  CHECK_FALSE(equal(c, cons(make_int(0), NIL)));
}

TEST_CASE("equal_hash terminates on cycles and agrees with equal? on them", "[equal][cycles]") {
  gc_init();
  CHECK(equal_hash(circular({1, 2})) == equal_hash(circular({1, 2, 1, 2})));
  CHECK(equal_hash(circular({1, 2})) == equal_hash(cons(make_int(1), circular({2, 1}))));
  Value c1 = nums({0, 2}), c3 = list2(nums({0, 2}), make_int(2));
  as<Pair>(c1)->car = c1;
  as<Pair>(car(c3))->car = c3;
  REQUIRE(equal(c1, c3));
  CHECK(equal_hash(c1) == equal_hash(c3));
  Value v = make_vector(2, make_int(1));
  as<Vector>(v)->items[1] = v;
  (void)equal_hash(v);  // terminates
}

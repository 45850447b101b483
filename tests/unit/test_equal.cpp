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
  REQUIRE(has_type(big1, T_INT64));
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

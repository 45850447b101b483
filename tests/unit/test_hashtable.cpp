// Unit tests for runtime/hashtable.h: lookups under growth, deletion with
// tombstones, insertion order, and survival of keys across forced collections.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "runtime/equal.h"
#include "runtime/hashtable.h"
#include "stdlib/builtins.h"

using namespace kiln;

static Value str(const std::string &s) { return make_string(s); }
static Value key_list(int i) { return list2(make_int(i), str(fmt::format("k{}", i))); }

TEST_CASE("hash table grows and finds every key", "[hashtable]") {
  gc_init();
  Value ht = make_hashtable(HASH_EQUAL);
  const int n = 50000;
  for (int i = 0; i < n; i++) hashtable_set(ht, make_int(i), make_int(i * 2));
  CHECK(hashtable_count(ht) == n);
  Value v;
  for (int i = 0; i < n; i++) {
    REQUIRE(hashtable_lookup(ht, make_int(i), &v));
    REQUIRE(int_of(v) == i * 2);
  }
  CHECK_FALSE(hashtable_lookup(ht, make_int(n), &v));
  hashtable_set(ht, make_int(5), str("five"));
  CHECK(hashtable_count(ht) == n);
  REQUIRE(hashtable_lookup(ht, make_int(5), &v));
  CHECK(string_view_of(v) == "five");
}

TEST_CASE("deletion leaves tombstones, keeps order, and compacts", "[hashtable]") {
  gc_init();
  Value ht = make_hashtable(HASH_EQUAL);
  for (int i = 0; i < 1000; i++) hashtable_set(ht, str(fmt::format("s{}", i)), make_int(i));
  for (int i = 0; i < 1000; i += 2) CHECK(hashtable_delete(ht, str(fmt::format("s{}", i))));
  CHECK_FALSE(hashtable_delete(ht, str("s0")));
  CHECK(hashtable_count(ht) == 500);
  Value v;
  for (int i = 0; i < 1000; i++) CHECK(hashtable_lookup(ht, str(fmt::format("s{}", i)), &v) == (i % 2 == 1));
  // Many more inserts force rebuilds that squeeze the tombstones out.
  for (int i = 1000; i < 5000; i++) hashtable_set(ht, str(fmt::format("s{}", i)), make_int(i));
  CHECK(hashtable_slot_limit(ht) < 5000);
  // Insertion order: odd keys below 1000, then 1000..4999.
  std::vector<int64_t> order;
  Value k;
  for (int64_t i = 0; i < hashtable_slot_limit(ht); i++)
    if (hashtable_slot(ht, i, &k, &v)) order.push_back(int_of(v));
  REQUIRE(order.size() == 4500);
  for (size_t i = 0; i < order.size(); i++)
    CHECK(order[i] == (i < 500 ? int64_t(2 * i + 1) : int64_t(i + 500)));
  // A key deleted and added again moves to the end.
  hashtable_delete(ht, str("s1"));
  hashtable_set(ht, str("s1"), make_int(-1));
  int64_t last = -1;
  for (int64_t i = 0; i < hashtable_slot_limit(ht); i++)
    if (hashtable_slot(ht, i, &k, &v)) last = int_of(v);
  CHECK(last == -1);
}

TEST_CASE("keys and values survive forced collections", "[hashtable]") {
  gc_init();
  Value ht = make_hashtable(HASH_EQUAL);
  const int n = 20000;
  // Keys and values are reachable only through the table.
  for (int i = 0; i < n; i++) hashtable_set(ht, key_list(i), str("value-" + std::to_string(i)));
  GC_gcollect();
  // Churn the heap so freed memory would be reused if anything were lost.
  for (int i = 0; i < 200000; i++) cons(make_int(i), str("garbage"));
  GC_gcollect();
  Value v;
  for (int i = 0; i < n; i++) {
    REQUIRE(hashtable_lookup(ht, key_list(i), &v));
    REQUIRE(string_view_of(v) == "value-" + std::to_string(i));
  }
  for (int i = 0; i < n; i += 3) hashtable_delete(ht, key_list(i));
  GC_gcollect();
  Value copy = hashtable_copy(ht);
  hashtable_clear(ht);
  CHECK(hashtable_count(ht) == 0);
  GC_gcollect();
  for (int i = 0; i < n; i++) REQUIRE(hashtable_lookup(copy, key_list(i), &v) == (i % 3 != 0));
}

TEST_CASE("eq and eqv tables compare keys by identity and by value", "[hashtable]") {
  gc_init();
  Value eqt = make_hashtable(HASH_EQ);
  Value a = str("same"), b = str("same");
  hashtable_set(eqt, a, make_int(1));
  hashtable_set(eqt, b, make_int(2));
  CHECK(hashtable_count(eqt) == 2);
  Value v;
  REQUIRE(hashtable_lookup(eqt, a, &v));
  CHECK(int_of(v) == 1);
  CHECK_FALSE(hashtable_lookup(eqt, str("same"), &v));

  Value eqvt = make_hashtable(HASH_EQV);
  hashtable_set(eqvt, make_int(int64_t(1) << 61), str("big"));
  REQUIRE(hashtable_lookup(eqvt, make_int(int64_t(1) << 61), &v));
  CHECK(string_view_of(v) == "big");
  CHECK_FALSE(hashtable_lookup(eqvt, make_string("big"), &v));
  hashtable_set(eqvt, make_double(0.0), make_int(0));
  CHECK_FALSE(hashtable_lookup(eqvt, make_double(-0.0), &v));

  Value eqlt = make_hashtable(HASH_EQUAL);
  hashtable_set(eqlt, a, make_int(1));
  hashtable_set(eqlt, b, make_int(2));
  CHECK(hashtable_count(eqlt) == 1);
  REQUIRE(hashtable_lookup(eqlt, str("same"), &v));
  CHECK(int_of(v) == 2);
}

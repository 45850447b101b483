// GC-safety tests: build large structures that are reachable only from this
// test's stack, force full collections with garbage allocated in between, and
// check that every object survived intact.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/eval.h"
#include "runtime/gc.h"
#include "runtime/hashtable.h"
#include "runtime/printer.h"

using namespace kiln;

namespace {

// Allocates lots of short-lived Kiln objects so freed memory gets reused.
void churn(int rounds) {
  for (int r = 0; r < rounds; r++) {
    Value junk = NIL;
    for (int i = 0; i < 20000; i++) junk = cons(make_string("garbage garbage garbage"), i % 100 ? junk : NIL);
    (void)junk;
  }
}

void collect_with_churn() {
  for (int i = 0; i < 3; i++) {
    churn(2);
    GC_gcollect();
  }
}

}  // namespace

TEST_CASE("gc: a long list survives collections", "[gc]") {
  const int n = 100000;
  Value lst = NIL;
  for (int i = n - 1; i >= 0; i--) lst = cons(make_int(i), lst);
  collect_with_churn();
  int i = 0;
  for (Value p = lst; is_pair(p); p = cdr(p), i++) REQUIRE(int_of(car(p)) == i);
  CHECK(i == n);
}

TEST_CASE("gc: vectors of strings and boxed integers survive", "[gc]") {
  const int n = 20000;
  Value vec = make_vector(n, NIL);
  for (int i = 0; i < n; i++) {
    Value item = (i % 2) ? make_string("item-" + std::to_string(i)) : make_int((int64_t(1) << 60) + i);
    as<Vector>(vec)->items[i] = item;
  }
  collect_with_churn();
  for (int i = 0; i < n; i++) {
    Value item = as<Vector>(vec)->items[i];
    if (i % 2) {
      REQUIRE(is_string(item));
      REQUIRE(string_view_of(item) == "item-" + std::to_string(i));
    } else {
      REQUIRE(is_int(item));
      REQUIRE(int_of(item) == (int64_t(1) << 60) + i);
    }
  }
}

TEST_CASE("gc: a large vector, allocated unzeroed and filled by make_vector, survives", "[gc]") {
  const int n = 300000;  // 2.4 MB: above make_vector's threshold for unzeroed blocks
  Value vec = make_vector(n, NIL);
  REQUIRE(as<Vector>(vec)->len == n);
  for (int i = 0; i < n; i++) REQUIRE(as<Vector>(vec)->items[i] == NIL);
  for (int i = 0; i < n; i += 3) as<Vector>(vec)->items[i] = make_string("big-" + std::to_string(i));
  collect_with_churn();
  for (int i = 0; i < n; i++) {
    Value item = as<Vector>(vec)->items[i];
    if (i % 3) {
      REQUIRE(item == NIL);
    } else {
      REQUIRE(is_string(item));
      REQUIRE(string_view_of(item) == "big-" + std::to_string(i));
    }
  }
}

TEST_CASE("gc: an unzeroed block's slack past the requested size is cleared", "[gc]") {
  // Dirty blocks of one size class, drop them, and take new ones of a size that
  // rounds up into the same class: the bytes past n were someone else's.
  const size_t n = 1000;  // the collector rounds this up (to 1008 or more)
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 2000; i++) {
      void *p = gc_alloc_unzeroed(n);
      std::memset(p, 0xAB, GC_size(p));
    }
    GC_gcollect();
  }
  int with_slack = 0;
  for (int i = 0; i < 2000; i++) {
    auto *p = static_cast<unsigned char *>(gc_alloc_unzeroed(n));
    size_t size = GC_size(p);
    REQUIRE(size >= n);
    if (size > n) with_slack++;
    for (size_t b = n; b < size; b++) REQUIRE(p[b] == 0);
    std::memset(p, 0xCD, n);
  }
  CHECK(with_slack > 0);  // the test looked at slack at all
}

TEST_CASE("gc: hash tables keep keys and values alive", "[gc]") {
  const int n = 20000;
  Value ht = make_hashtable(HASH_EQUAL);
  for (int i = 0; i < n; i++)
    hashtable_set(ht, make_string("key" + std::to_string(i)),
                  cons(make_int(i), make_string(std::to_string(i))));
  collect_with_churn();
  CHECK(hashtable_count(ht) == n);
  for (int i = 0; i < n; i += 7) {
    Value out = NIL;
    REQUIRE(hashtable_lookup(ht, make_string("key" + std::to_string(i)), &out));
    REQUIRE(is_pair(out));
    REQUIRE(int_of(car(out)) == i);
    REQUIRE(string_view_of(cdr(out)) == std::to_string(i));
  }
}

TEST_CASE("gc: symbols survive and stay unique", "[gc]") {
  Value a = intern("gc-test-symbol-that-nothing-else-uses");
  uintptr_t address = a.bits;
  a = NIL;  // drop our only reference
  collect_with_churn();
  Value again = intern("gc-test-symbol-that-nothing-else-uses");
  CHECK(again.bits == address);
  CHECK(symbol_name(again) == "gc-test-symbol-that-nothing-else-uses");
  // Many fresh symbols: each still has its name after collections.
  for (int i = 0; i < 2000; i++) intern("gc-sym-" + std::to_string(i));
  collect_with_churn();
  for (int i = 0; i < 2000; i += 37)
    CHECK(symbol_name(intern("gc-sym-" + std::to_string(i))) == "gc-sym-" + std::to_string(i));
}

TEST_CASE("gc: string bytes survive", "[gc]") {
  std::string big(100000, 'x');
  for (size_t i = 0; i < big.size(); i++) big[i] = char('a' + i % 26);
  Value s = make_string(big);
  Value nested = cons(make_string("inner"), cons(s, NIL));
  collect_with_churn();
  CHECK(string_view_of(s) == big);
  CHECK(string_view_of(car(nested)) == "inner");
  CHECK(string_view_of(car(cdr(nested))) == big);
}

TEST_CASE("gc: a closure from eval_string survives and still runs", "[gc]") {
  Value f = eval_string(
      "(let ((table (map (lambda (i) (cons i (number->string (* i i)))) (iota 1000))))"
      "  (lambda (k) (cdr (assv k table))))",
      "gc-test");
  REQUIRE(is_procedure(f));
  collect_with_churn();
  Value arg = make_int(999);
  Value r = apply_proc(f, 1, &arg);
  REQUIRE(is_string(r));
  CHECK(string_view_of(r) == "998001");
  // A global defined by eval_string is reachable through its symbol.
  eval_string("(define gc-test-global (list 1 2 (vector \"three\" 4.5)))", "gc-test");
  collect_with_churn();
  CHECK(write_string(eval_string("gc-test-global", "gc-test")) == "(1 2 #(\"three\" 4.5))");
}

namespace {
// Reachable only from this executable's static data.
Value g_only_in_static_data = NIL;
bool g_static_object_finalized = false;
int g_garbage_finalized = 0;

void note_finalized(void *, void *flag) { *static_cast<bool *>(flag) = true; }

__attribute__((noinline)) void make_finalizable_garbage(int n) {
  for (int i = 0; i < n; i++) {
    Value v = cons(make_int(i), NIL);
    GC_register_finalizer(
        as<void>(v), [](void *, void *) { g_garbage_finalized++; }, nullptr, nullptr, nullptr);
  }
}
}  // namespace

TEST_CASE("gc: the executable's data is scanned, the listed libraries' data is not", "[gc]") {
  CHECK(g_gc_unscanned_segments > 0);  // libc's, at least
  g_only_in_static_data = cons(make_int(7), NIL);
  GC_register_finalizer(as<void>(g_only_in_static_data), note_finalized, &g_static_object_finalized, nullptr,
                        nullptr);
  make_finalizable_garbage(1000);  // the control: these must go
  collect_with_churn();
  GC_invoke_finalizers();
  CHECK(g_garbage_finalized > 0);
  CHECK_FALSE(g_static_object_finalized);
  CHECK(int_of(car(g_only_in_static_data)) == 7);
}

namespace {

// What gc_warning writes to stderr for one warning.
std::string warning_output(const char *msg, GC_word arg) {
  std::fflush(stderr);
  int saved = dup(2);
  FILE *capture = std::tmpfile();
  REQUIRE(capture != nullptr);
  dup2(fileno(capture), 2);
  gc_warning(const_cast<char *>(msg), arg);
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string out;
  std::rewind(capture);
  for (int c; (c = std::fgetc(capture)) != EOF;) out += char(c);
  std::fclose(capture);
  return out;
}

}  // namespace

TEST_CASE("gc: the collector's out-of-memory notes never reach stderr", "[gc]") {
  // libgc 8.2's texts, as its WARN macro passes them to the warn procedure.
  for (const char *msg : {"GC Warning: Out of memory - trying to allocate requested amount (%ld bytes)...\n",
                          "GC Warning: Header allocation failed: dropping block\n",
                          "GC Warning: Out of Memory!  Trying to continue...\n",
                          "GC Warning: Out of Memory! Heap size: %ld MiB. Returning NULL!\n",
                          "GC Warning: Failed to expand heap by %ld bytes\n",
                          "GC Warning: Failed to grow mark stack to %ld frames\n",
                          "GC Warning: Repeated allocation of very large block (appr. size %ld):\n"})
    CHECK(warning_output(msg, 336) == "");
  // Every other warning still does, with its argument.
  CHECK(warning_output("GC Warning: Marker thread creation failed, errno= %ld\n", 11) ==
        "GC Warning: Marker thread creation failed, errno= 11\n");
  CHECK(warning_output("GC Warning: GC_get_nprocs() returned %ld\n", 7) ==
        "GC Warning: GC_get_nprocs() returned 7\n");
}

TEST_CASE("gc: a pending Ctrl-C makes the collector skip a collection, and the heap stays sound", "[gc]") {
  // init_runtime points the collector at g_interrupt (gc_stop_collections_when).
  Value keep = NIL;
  for (int i = 0; i < 100000; i++) keep = cons(make_int(i), keep);
  GC_gcollect();
  GC_word before = GC_get_gc_no();
  g_interrupt = 1;
  GC_gcollect();  // abandoned: the stop function answers at once
  GC_word during = GC_get_gc_no();
  g_interrupt = 0;
  GC_gcollect();
  CHECK(during == before);
  CHECK(GC_get_gc_no() > during);
  int64_t n = 0, sum = 0;
  for (Value p = keep; is_pair(p); p = cdr(p), n++) sum += int_of(car(p));
  CHECK(n == 100000);
  CHECK(sum == int64_t(99999) * 100000 / 2);
}

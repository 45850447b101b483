// equality.cpp — eq? eqv? equal?, type predicates and boolean procedures.
//
// Invariant: the comparisons themselves live in runtime/equal.h so hash tables
// and other C++ code share exactly the semantics these builtins expose.
#include "runtime/equal.h"
#include "runtime/nodes.h"
#include "stdlib/builtins.h"

namespace kiln {

static Value b_eq(int, Value *a) { return boolv(eq(a[0], a[1])); }
static Value b_eqv(int, Value *a) { return boolv(eqv(a[0], a[1])); }
static Value b_equal(int, Value *a) { return boolv(equal(a[0], a[1])); }

static Value b_not(int, Value *a) {
  if (truth_unknown(a[0])) [[unlikely]]
    check_truth_known(a[0], "not");
  return boolv(a[0] == FALSE_V);
}
static Value b_booleanp(int, Value *a) { return boolv(is_bool(a[0])); }
static Value b_symbolp(int, Value *a) { return boolv(is_symbol(a[0])); }
static Value b_procedurep(int, Value *a) { return boolv(is_procedure(a[0])); }
static Value b_nullp(int, Value *a) { return boolv(a[0] == NIL); }
static Value b_pairp(int, Value *a) { return boolv(is_pair(a[0])); }
static Value b_listp(int, Value *a) { return boolv(list_length(a[0]) >= 0); }
static Value b_vectorp(int, Value *a) { return boolv(is_vector(a[0])); }
static Value b_stringp(int, Value *a) { return boolv(is_string(a[0])); }
static Value b_charp(int, Value *a) { return boolv(is_char(a[0])); }

// (boolean=? b1 b2 b3 ...): every argument must be a boolean.
static Value b_boolean_eq(int argc, Value *a) {
  for (int i = 0; i < argc; i++)
    if (!is_bool(a[i])) type_error("boolean=?", i + 1, "a boolean", a[i]);
  for (int i = 1; i < argc; i++)
    if (a[i] != a[0]) return FALSE_V;
  return TRUE_V;
}

// (symbol=? s1 s2 s3 ...): every argument must be a symbol.
static Value b_symbol_eq(int argc, Value *a) {
  for (int i = 0; i < argc; i++) arg_symbol("symbol=?", i + 1, a[i]);
  for (int i = 1; i < argc; i++)
    if (a[i] != a[0]) return FALSE_V;
  return TRUE_V;
}

static BuiltinRegistrar equality_registrar([] {
  defbuiltin("eq?", 2, 2, b_eq, "(eq? a b): #t if a and b are the same object.");
  defbuiltin("eqv?", 2, 2, b_eqv,
             "(eqv? a b): eq?, or numbers of the same exactness and value (floats by bit pattern).");
  defbuiltin("equal?", 2, 2, b_equal,
             "(equal? a b): structural equality of pairs, vectors, strings and tensors; eqv? otherwise.");
  defbuiltin("not", 1, 1, b_not, "(not x): #t if x is #f, else #f.");
  defbuiltin("boolean?", 1, 1, b_booleanp, "(boolean? x): #t if x is #t or #f.");
  defbuiltin("symbol?", 1, 1, b_symbolp, "(symbol? x): #t if x is a symbol.");
  defbuiltin("procedure?", 1, 1, b_procedurep,
             "(procedure? x): #t if x can be called (closure, builtin, kernel, continuation, parameter).");
  defbuiltin("null?", 1, 1, b_nullp, "(null? x): #t if x is the empty list.");
  defbuiltin("pair?", 1, 1, b_pairp, "(pair? x): #t if x is a pair.");
  defbuiltin("list?", 1, 1, b_listp, "(list? x): #t if x is a proper (finite, ()-terminated) list.");
  defbuiltin("vector?", 1, 1, b_vectorp, "(vector? x): #t if x is a vector.");
  defbuiltin("string?", 1, 1, b_stringp, "(string? x): #t if x is a string.");
  defbuiltin("char?", 1, 1, b_charp, "(char? x): #t if x is a character.");
  defbuiltin("boolean=?", 2, -1, b_boolean_eq, "(boolean=? b1 b2 ...): #t if all the booleans are the same.");
  defbuiltin("symbol=?", 2, -1, b_symbol_eq, "(symbol=? s1 s2 ...): #t if all the symbols are the same.");
});

}  // namespace kiln

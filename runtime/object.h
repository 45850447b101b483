// object.h — heap object layouts and their constructors.
//
// Invariant: every heap object starts with an ObjHeader whose `type` says which
// struct follows, lives in Boehm-GC memory, and holds Lisp values only in fields
// of type Value (or pointers to GC memory), so the collector finds them. Byte
// buffers (string bytes, tensor data) are GC_MALLOC_ATOMIC and hold no pointers.
// Symbols are allocated uncollectable: they are roots, so their global value
// cells keep everything defined at top level alive.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

#include "runtime/gc.h"
#include "runtime/op_table.h"
#include "runtime/value.h"

namespace kiln {

enum ObjType : uint8_t {
  T_PAIR = 1,
  T_SYMBOL,
  T_STRING,
  T_VECTOR,
  T_BIGNUM,
  T_CLOSURE,
  T_BUILTIN,
  T_MACRO,
  T_TENSOR,
  T_HASHTABLE,
  T_ERROR,
  T_RECORD_TYPE,
  T_RECORD,
  T_PROMISE,
  T_PARAMETER,
  T_CONTINUATION,
  T_VALUES,
  T_PORT,
  T_ENVIRONMENT,
  T_BYTEVECTOR,
  T_RATNUM,
  T_COMPNUM,
  T_OPAQUE,  // runtime-internal objects that are never shown to Lisp code
  // Types registered by the layers above (register_object_type) follow.
};

struct ObjHeader {
  uint8_t type;
  uint8_t flags;
  uint16_t col;   // pairs read from source: column (1-based, 0 = unknown)
  uint32_t line;  // pairs read from source: line (1-based, 0 = unknown)
};

inline ObjHeader *hdr(Value v) { return reinterpret_cast<ObjHeader *>(v.bits); }
inline uint8_t type_of_ptr(Value v) { return hdr(v)->type; }
inline bool has_type(Value v, uint8_t t) { return is_ptr(v) && hdr(v)->type == t; }
inline Value from_ptr(const void *p) { return Value{reinterpret_cast<uint64_t>(p)}; }
template <class T> inline T *as(Value v) { return reinterpret_cast<T *>(v.bits); }

// ---- pairs -------------------------------------------------------------
struct Pair {
  ObjHeader h;
  Value car, cdr;
  uint32_t file;  // index into the source file table (srcloc.h), 0 = none
  uint32_t spare;
};
inline bool is_pair(Value v) { return has_type(v, T_PAIR); }
inline Value car(Value v) { return as<Pair>(v)->car; }
inline Value cdr(Value v) { return as<Pair>(v)->cdr; }

// True if following cdrs from v never reaches a non-pair (Floyd).
inline bool is_circular(Value v) {
  Value slow = v, fast = v;
  for (;;) {
    if (!is_pair(fast)) return false;
    fast = cdr(fast);
    if (!is_pair(fast)) return false;
    fast = cdr(fast);
    slow = cdr(slow);
    if (fast == slow) return true;
  }
}
// For a circular v: the pairs before its loop (*mu) and in the loop (*lambda).
void loop_shape(Value v, int64_t *mu, int64_t *lambda);
Value cons(Value a, Value d);

// ---- exact integers beyond the fixnum range, exact rationals -----------------
// A bignum is an integer outside the fixnum range (never one inside it), its
// magnitude in GMP's limb layout (least significant first, no leading zero
// limb) and `size` the signed limb count, as in an mpz_t; one GC_MALLOC_ATOMIC
// block, never mutated after it is made. A ratnum is num/den in lowest terms with
// den > 1, each a fixnum or a bignum. runtime/exact.h does the arithmetic.
struct Bignum {
  ObjHeader h;
  int32_t size;
  uint32_t spare;
  uint64_t limbs[];
};
struct Ratnum {
  ObjHeader h;
  Value num, den;
};
inline bool is_bignum(Value v) { return has_type(v, T_BIGNUM); }
inline bool is_ratnum(Value v) { return has_type(v, T_RATNUM); }
inline bool is_exact_integer(Value v) { return is_fixnum(v) || is_bignum(v); }
inline bool is_exact(Value v) {
  return is_fixnum(v) || (is_ptr(v) && (hdr(v)->type == T_BIGNUM || hdr(v)->type == T_RATNUM));
}
inline bool bignum_fits_int64(const Bignum *b) {
  return (b->size == 1 && b->limbs[0] <= uint64_t(INT64_MAX)) ||
         (b->size == -1 && b->limbs[0] <= (1ull << 63));
}
// is_int / int_of: an exact integer in int64 range (what indices, counts and
// codes take); a larger bignum is not is_int, so such callers report it.
inline bool is_int(Value v) { return is_fixnum(v) || (is_bignum(v) && bignum_fits_int64(as<Bignum>(v))); }
inline int64_t int_of(Value v) {
  if (is_fixnum(v)) return fixnum_of(v);
  const Bignum *b = as<Bignum>(v);
  return b->size > 0 ? int64_t(b->limbs[0]) : int64_t(0 - b->limbs[0]);
}
Value make_int_slow(int64_t n);
inline Value make_int(int64_t n) { return fits_fixnum(n) ? make_fixnum(n) : make_int_slow(n); }
// is_number: a real number (exact or float), which is what every operation that
// needs an order, an integer or a tensor element takes. A non-real complex number
// is a Compnum (runtime/complex.h); is_any_number covers both, as R7RS number? does.
inline bool is_number(Value v) { return is_double(v) || is_exact(v); }

// ---- complex numbers with a non-zero imaginary part ---------------------------
// re and im are both exact (then im != 0: an exact complex with zero imaginary
// part is the real re) or both floats (then im may be 0.0: 1.0+0.0i is not
// real, as in R7RS and Guile). Never mutated after it is made.
struct Compnum {
  ObjHeader h;
  Value re, im;
};
inline bool is_compnum(Value v) { return has_type(v, T_COMPNUM); }
inline bool is_any_number(Value v) { return is_number(v) || is_compnum(v); }
// Correctly rounded (exact.cpp); +-inf.0 beyond the double range.
double exact_to_double(Value v);
inline double number_as_double(Value v) {
  if (is_double(v)) return double_of(v);
  if (is_fixnum(v)) return double(fixnum_of(v));  // |n| < 2^49: exact
  return exact_to_double(v);
}

// ---- strings (Unicode text, mutable, constant-time indexing) ----------------
// Width-adaptive storage (string_storage.cpp): a string whose characters are
// all ASCII keeps one byte per character, which is then also its UTF-8 text,
// so string_view_of costs nothing; storing any wider character converts it to
// four bytes per character (it stays wide). Either buffer is GC atomic.
enum StringFlags : uint8_t { STRING_WIDE = 1 };
struct String {
  ObjHeader h;  // h.flags & STRING_WIDE: data holds uint32_t code points
  int64_t len;  // characters
  char *data;   // narrow: ASCII bytes + NUL; wide: uint32_t[len + 1], 0-terminated
  char *utf8;   // wide: its UTF-8 text + NUL, made on demand, nullptr once stale
  int64_t utf8_len;
};
inline bool is_string(Value v) { return has_type(v, T_STRING); }
inline bool string_is_wide(const String *s) { return (s->h.flags & STRING_WIDE) != 0; }
inline const uint32_t *wide_chars(const String *s) { return reinterpret_cast<const uint32_t *>(s->data); }
inline uint32_t *wide_chars(String *s) { return reinterpret_cast<uint32_t *>(s->data); }
// The character at index i (0 <= i < len).
inline uint32_t string_char(const String *s, int64_t i) {
  return string_is_wide(s) ? wide_chars(s)[i] : (unsigned char)s->data[i];
}
// Stores the scalar value c at index i, widening the string when c is not ASCII.
void string_set_char(String *s, int64_t i, uint32_t c);
// Marks the UTF-8 text of a wide string stale after its characters changed.
inline void string_changed(String *s) { s->utf8 = nullptr; }

// From UTF-8 text; invalid bytes become U+FFFD (text from the system: file
// names, environment variables). Sources and ports check their input first.
Value make_string(std::string_view utf8);
Value make_string_filled(int64_t n, uint32_t c);
Value make_string_from_chars(const uint32_t *chars, int64_t n);
// A string of len characters for the caller to fill; narrow ones must get ASCII only.
String *alloc_string(int64_t len, bool wide);
// Characters [start, end) of s as a new string (narrow when they are all ASCII).
Value string_slice(const String *s, int64_t start, int64_t end);
// Copies from's characters [start, end) to `to` at index `at` (the ranges may
// overlap, as memmove), widening `to` when a copied character needs it.
void string_copy_chars(String *to, int64_t at, const String *from, int64_t start, int64_t end);
// The UTF-8 text of a string, NUL-terminated; valid until the string changes.
std::string_view wide_string_utf8(String *s);
inline std::string_view string_view_of(Value v) {
  String *s = as<String>(v);
  if (!string_is_wide(s)) [[likely]]
    return {s->data, size_t(s->len)};
  return wide_string_utf8(s);
}

// ---- symbols -----------------------------------------------------------
enum SymbolFlags : uint8_t { SYM_INTERNED = 1 };
struct Symbol {
  ObjHeader h;
  Value name;        // a String
  Value global;      // global value cell; NOVALUE when unbound
  Value doc;         // documentation string of the global definition, or NOVALUE
  uint32_t special;  // special-form id (eval), 0 for none
  uint32_t hash;
  // A syntax-rules alias (see syntax_rules.cpp): the symbol this uninterned
  // one stands for (itself perhaps an alias); NOVALUE for every other symbol.
  Value alias_of;
  // Where the macro that made the alias was defined: its Scope (analyze_internal.h;
  // null at top level) and its top-level environment (library.h; null for the
  // program's). An alias not bound by the expansion means what alias_of means there.
  void *alias_scope;
  void *alias_env;
  // How many scopes being analysed right now bind this symbol (analyze.cpp):
  // at 0 a lookup knows the name is global without walking the scopes.
  uint32_t scope_bindings;
};
inline bool is_symbol(Value v) { return has_type(v, T_SYMBOL); }
inline Symbol *sym(Value v) { return as<Symbol>(v); }
Value intern(std::string_view name);
Value gensym(std::string_view prefix);
inline std::string_view symbol_name(Value v) { return string_view_of(sym(v)->name); }
// The symbol an alias stands for (through aliases of aliases); any other value itself.
inline Value unaliased(Value v) {
  while (is_symbol(v) && sym(v)->alias_of != NOVALUE) v = sym(v)->alias_of;
  return v;
}
// Calls f(Value sym) for every interned symbol (completion, apropos, did-you-mean).
void for_each_symbol(const std::function<void(Value)> &f);

// ---- vectors -----------------------------------------------------------
struct Vector {
  ObjHeader h;
  int64_t len;
  Value items[];
};
inline bool is_vector(Value v) { return has_type(v, T_VECTOR); }
Value make_vector(int64_t n, Value fill);

// ---- bytevectors (R7RS): fixed length, mutable, pointer-free -----------------
struct Bytevector {
  ObjHeader h;
  int64_t len;
  uint8_t bytes[];  // in the same GC_MALLOC_ATOMIC block as the header
};
inline bool is_bytevector(Value v) { return has_type(v, T_BYTEVECTOR); }
// n bytes, each `fill` (raises "out of memory" when n is beyond what fits).
Value make_bytevector(int64_t n, uint8_t fill);
Value make_bytevector_from(const uint8_t *p, int64_t n);

// ---- procedures ----------------------------------------------------------
using BuiltinFn = Value (*)(int argc, Value *argv);
struct Builtin {
  ObjHeader h;
  BuiltinFn fn;
  const char *name;
  const char *doc;
  int32_t min_args;
  int32_t max_args;  // -1 = variadic
};
inline bool is_builtin(Value v) { return has_type(v, T_BUILTIN); }

struct Lambda;  // analysed lambda (eval)
struct Frame {
  Frame *parent;
  Value slots[];
};
struct Closure {
  ObjHeader h;
  Lambda *lam;
  Frame *env;
  Value next_case;  // case-lambda: the closure to try when the arity does not match
};
inline bool is_closure(Value v) { return has_type(v, T_CLOSURE); }
// Anything `apply` accepts: closures, builtins, kernels, continuations, parameters,
// record procedures (builtins with data).
bool is_procedure(Value v);

struct Macro {
  ObjHeader h;
  Value name;         // symbol
  Value transformer;  // a procedure taking the whole form (defmacro) or a syntax-rules object
  Value whole_form;   // TRUE_V: the transformer is called with the whole form
  void *def_scope;    // the Scope it was defined in (null: top level), for hygiene
  void *def_env;      // the top-level environment it was defined in (library.h)
};

// ---- errors, records, misc -----------------------------------------------
struct ErrorObj {
  ObjHeader h;
  Value message;    // string
  Value irritants;  // list
  Value kind;       // symbol: error, file-error, read-error, ...
};
inline bool is_error_obj(Value v) { return has_type(v, T_ERROR); }
Value make_error_obj(Value message, Value irritants, Value kind);

struct MultipleValues {
  ObjHeader h;
  int64_t n;
  Value items[];
};

struct Promise {
  ObjHeader h;
  Value done;   // TRUE_V once forced
  Value value;  // the value, or the thunk while pending
};

struct Parameter {
  ObjHeader h;
  Value value;
  Value converter;  // procedure or FALSE_V
};

struct Continuation {
  ObjHeader h;
  uint64_t id;
  void *state;  // ContinuationState (continuation.h), in scanned GC memory
};

struct RecordType {
  ObjHeader h;
  Value name;    // symbol
  Value fields;  // list of field symbols, in the order of Record::fields
};
struct Record {
  ObjHeader h;
  Value rtype;
  int64_t n;
  Value fields[];
};

// Generic typed allocation. `extra` is trailing bytes for flexible arrays.
template <class T> inline T *alloc_obj(uint8_t type, size_t extra = 0) {
  T *p = static_cast<T *>(gc_alloc(alloc_bytes(extra, 1, sizeof(T))));
  p->h.type = type;
  p->h.flags = 0;
  p->h.col = 0;
  p->h.line = 0;
  return p;
}

// Per-type behaviour supplied by the module that owns the type (tensors,
// kernels, ports...), so the printer and equal? need not know every type.
struct TypeHooks {
  const char *name = nullptr;  // "tensor"
  void (*print)(std::string &out, Value v, bool write) = nullptr;
  bool (*equal)(Value a, Value b) = nullptr;  // equal? on two values of this type
  // Set for callable types (compiled kernels): makes is_procedure true and is
  // what apply_proc calls. The argument count is not checked before the call.
  Value (*apply)(Value self, int argc, Value *argv) = nullptr;
  // Numeric procedures (+ - * / max min abs sqrt exp log sin cos tan expt square 1+ 1-
  // and the comparisons) given a value of this type call this instead of raising
  // their type error; `op` is the procedure's name; NOVALUE means "not handled".
  // When values of several such types meet, the highest arith_rank decides.
  Value (*arith)(const char *op, int argc, Value *argv) = nullptr;
  int arith_rank = 0;
  // `if` whose test is of this type: the form's value, from both branches' values.
  // (This and `truth` are only consulted for registered types, above T_OPAQUE.)
  Value (*select)(Value test, Value then_value, Value else_value) = nullptr;
  // Set for values whose truth is unknown (symbolic values): `and`, `or` and `not`
  // call it with their name, and it raises.
  void (*truth)(Value v, const char *who) = nullptr;
  // The tensor builtins given a value of this type as an argument (concat: as an
  // element of its list) return this instead of running: `builtin` says which
  // (runtime/op_table.h; builtin.name() is its Lisp name). It answers or raises;
  // see foreign_call in args.h.
  Value (*call)(BuiltinOp builtin, int argc, Value *argv) = nullptr;
};
extern TypeHooks g_type_hooks[256];

// A fresh type tag for a foreign value type (kernels, symbolic values), whose
// behaviour is its g_type_hooks entry. Raises when the 256 tags are used up.
uint8_t register_object_type(const char *name);

// memcpy of n values; n may be 0 with a null `src` (a builtin called from C++
// with no arguments gets argv == nullptr), which memcpy itself does not allow.
inline void copy_values(Value *dst, const Value *src, int64_t n) {
  if (n > 0) std::memcpy(dst, src, sizeof(Value) * size_t(n));
}

// Human name of a value's type, for error messages ("pair", "string", ...).
const char *type_name(Value v);

}  // namespace kiln

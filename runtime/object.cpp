#include "runtime/object.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "runtime/error.h"
#include "runtime/eval.h"

namespace kiln {

TypeHooks g_type_hooks[256];

uint8_t register_object_type(const char *name) {
  static int next = T_OPAQUE + 1;
  if (next > 255) throw_errorf("too many object types (registering {})", name);
  g_type_hooks[next].name = name;
  return uint8_t(next++);
}

Value cons(Value a, Value d) {
  Pair *p = alloc_obj<Pair>(T_PAIR);
  p->car = a;
  p->cdr = d;
  p->file = 0;
  return from_ptr(p);
}

Value make_int_slow(int64_t n) {
  Bignum *b = static_cast<Bignum *>(gc_alloc_atomic(sizeof(Bignum) + sizeof(uint64_t)));
  b->h = ObjHeader{T_BIGNUM, 0, 0, 0};
  b->size = n < 0 ? -1 : 1;
  b->spare = 0;
  b->limbs[0] = n < 0 ? 0 - uint64_t(n) : uint64_t(n);
  return from_ptr(b);
}

// The symbol table maps names to uncollectable Symbol objects. The map itself is
// malloc memory, which is fine: the symbols are roots on their own.
static std::unordered_map<std::string, Symbol *> &symbol_table() {
  static auto *t = new std::unordered_map<std::string, Symbol *>();
  return *t;
}

static Symbol *new_symbol(std::string_view name, bool root) {
  Symbol *s = static_cast<Symbol *>(root ? gc_alloc_root(sizeof(Symbol)) : gc_alloc(sizeof(Symbol)));
  s->h = ObjHeader{T_SYMBOL, uint8_t(root ? SYM_INTERNED : 0), 0, 0};
  s->name = make_string(name);
  s->global = NOVALUE;
  s->doc = NOVALUE;
  s->special = 0;
  s->hash = uint32_t(std::hash<std::string_view>()(name));
  s->alias_of = NOVALUE;
  s->alias_scope = nullptr;
  s->alias_env = nullptr;
  s->scope_bindings = 0;
  return s;
}

Value intern(std::string_view name) {
  auto &t = symbol_table();
  auto it = t.find(std::string(name));
  if (it != t.end()) return from_ptr(it->second);
  Symbol *s = new_symbol(name, true);
  t.emplace(std::string(name), s);
  return from_ptr(s);
}

Value gensym(std::string_view prefix) {
  static uint64_t counter = 0;
  std::string name = std::string(prefix) + std::to_string(++counter);
  return from_ptr(new_symbol(name, false));
}

void for_each_symbol(const std::function<void(Value)> &f) {
  for (auto &kv : symbol_table()) f(from_ptr(kv.second));
}

Value make_vector(int64_t n, Value fill) {
  size_t bytes = alloc_bytes(uint64_t(n), sizeof(Value), sizeof(Vector));
  // A large vector is filled here, in chunks that poll for Ctrl-C, rather than
  // cleared by the collector in one call: (make-vector (expt 2 31)) is 16 GiB.
  constexpr size_t kUnzeroedFrom = size_t(1) << 20;
  auto *v = static_cast<Vector *>(bytes < kUnzeroedFrom ? gc_alloc(bytes) : gc_alloc_unzeroed(bytes));
  v->h = ObjHeader{T_VECTOR, 0, 0, 0};
  v->len = 0;  // until filled, so that nothing walks the stale words
  fill_in_polled_chunks(n, int64_t(1) << 20, [&](int64_t lo, int64_t hi) {
    for (int64_t j = lo; j < hi; j++) v->items[j] = fill;
  });
  v->len = n;
  return from_ptr(v);
}

Value make_bytevector(int64_t n, uint8_t fill) {
  if (n < 0 || uint64_t(n) > (uint64_t(1) << 40))
    throw_errorf("out of memory allocating a bytevector of {} bytes", n);
  auto *b = static_cast<Bytevector *>(gc_alloc_atomic(sizeof(Bytevector) + size_t(n)));
  b->h = ObjHeader{T_BYTEVECTOR, 0, 0, 0};
  b->len = n;
  fill_in_polled_chunks(n, int64_t(1) << 24,
                        [&](int64_t lo, int64_t hi) { std::memset(b->bytes + lo, fill, size_t(hi - lo)); });
  return from_ptr(b);
}

Value make_bytevector_from(const uint8_t *p, int64_t n) {
  Value v = make_bytevector(n, 0);
  if (n > 0) std::memcpy(as<Bytevector>(v)->bytes, p, size_t(n));
  return v;
}

Value make_error_obj(Value message, Value irritants, Value kind) {
  ErrorObj *e = alloc_obj<ErrorObj>(T_ERROR);
  e->message = message;
  e->irritants = irritants;
  e->kind = kind;
  return from_ptr(e);
}

bool is_procedure(Value v) {
  if (!is_ptr(v)) return false;
  switch (hdr(v)->type) {
  case T_CLOSURE:
  case T_BUILTIN:
  case T_CONTINUATION:
  case T_PARAMETER: return true;
  default: return g_type_hooks[hdr(v)->type].apply != nullptr;
  }
}

const char *type_name(Value v) {
  if (is_fixnum(v)) return "integer";
  if (is_double(v)) return "float";
  if (is_char(v)) return "char";
  if (is_bool(v)) return "boolean";
  if (v == NIL) return "empty list";
  if (v == EOF_V) return "eof object";
  if (!is_ptr(v)) return "unspecified";
  switch (hdr(v)->type) {
  case T_PAIR: return "pair";
  case T_SYMBOL: return "symbol";
  case T_STRING: return "string";
  case T_VECTOR: return "vector";
  case T_BYTEVECTOR: return "bytevector";
  case T_BIGNUM: return "integer";
  case T_RATNUM: return "rational";
  case T_COMPNUM: return "complex number";
  case T_CLOSURE:
  case T_BUILTIN:
  case T_CONTINUATION:
  case T_PARAMETER: return "procedure";
  case T_MACRO: return "macro";
  case T_HASHTABLE: return "hash table";
  case T_ERROR: return "error object";
  case T_RECORD: return "record";
  case T_RECORD_TYPE: return "record type";
  case T_ENVIRONMENT: return "environment";
  case T_PROMISE: return "promise";
  case T_PORT: return "port";
  default: {
    const char *n = g_type_hooks[hdr(v)->type].name;
    return n ? n : "object";
  }
  }
}

void loop_shape(Value v, int64_t *mu, int64_t *lambda) {
  Value slow = v, fast = v;
  do {
    slow = cdr(slow);
    fast = cdr(cdr(fast));
  } while (slow != fast);
  *mu = 0;
  for (slow = v; slow != fast; slow = cdr(slow), fast = cdr(fast)) ++*mu;
  *lambda = 1;
  for (fast = cdr(slow); fast != slow; fast = cdr(fast)) ++*lambda;
}

}  // namespace kiln

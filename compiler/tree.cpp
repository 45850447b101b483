// tree.cpp — flattening, matching and rebuilding trees (tree.h).
#include "compiler/tree.h"

#include <unordered_set>

#include "compiler/trace.h"
#include "runtime/args.h"
#include "runtime/error.h"
#include "runtime/gc.h"
#include "runtime/list_builder.h"
#include "runtime/object.h"
#include "runtime/tensor.h"

namespace kiln {

bool is_tree_branch(Value v) { return v == NIL || is_pair(v) || is_vector(v); }

bool is_tree_entry(Value v) { return is_pair(v) && is_symbol(car(v)); }

bool is_named_branch(Value v) { return is_pair(v) && is_tree_entry(car(v)); }

namespace {

std::string argument_label(int arg) { return fmt::format("argument {}", arg); }

[[noreturn]] void too_deep(const char *who, const std::string &what) {
  throw_errorf("{}: {}: a tree nested deeper than {} levels", who, what, kMaxTreeDepth);
}

// A proper list's length, or the error naming what is wrong with it.
int64_t branch_length(const char *who, const std::string &what, Value v) {
  if (is_vector(v)) return as<Vector>(v)->len;
  int64_t n = list_length(v);
  if (n >= 0) return n;
  if (is_circular(v)) throw_errorf("{}: {}: a tree cannot be a circular list", who, what);
  throw_errorf("{}: {}: a tree cannot be an improper list, got {}", who, what, error_value_string(v));
}

// The tree a list element stands for: an entry's SUBTREE, anything else itself.
// Only list elements are ever entries (never vector items or a whole argument).
Value subtree(Value element) { return is_tree_entry(element) ? cdr(element) : element; }

// Child i of a branch, walking a list with `cursor`: an entry stands for its subtree.
Value child(Value branch, int64_t i, Value &cursor) {
  if (is_vector(branch)) return as<Vector>(branch)->items[i];
  Value x = car(cursor);
  cursor = cdr(cursor);
  return subtree(x);
}

// "(w b)": the keys of a named branch, for messages.
std::string key_list(Value named) {
  std::string out = "(";
  for (Value c = named; is_pair(c); c = cdr(c)) {
    if (out.size() > 1) out += ' ';
    out += is_tree_entry(car(c)) ? std::string(symbol_name(car(car(c)))) : "?";
  }
  return out + ")";
}

// A named branch's elements must all be entries with distinct keys; any other list
// must hold no entry (a key inside a list of unnamed trees is a slip, not a name).
void check_entries(const char *who, const std::string &what, Value list, int64_t n) {
  bool named = is_named_branch(list);
  std::unordered_set<uint64_t> keys;
  Value c = list;
  for (int64_t i = 0; i < n; i++, c = cdr(c)) {
    Value e = car(c);
    if (!named) {
      if (is_tree_entry(e))
        throw_errorf("{}: {}: a list mixes (KEY . TREE) entries with other trees, got {}", who, what,
                     error_value_string(list));
      continue;
    }
    if (!is_tree_entry(e))
      throw_errorf("{}: {}: entry {} of an association list must be (KEY . TREE) with a symbol KEY, got {}",
                   who, what, i + 1, error_value_string(e));
    if (!keys.insert(car(e).bits).second)
      throw_errorf("{}: {}: the key {} appears twice in an association list", who, what, symbol_name(car(e)));
  }
}

struct LeafCheck {
  const char *who;
  const std::string &what;  // "argument 2", "the traced function's result"
  bool symbolic_ok;
  int64_t leaves = 0;

  void walk(Value v, int depth) {
    if (depth > kMaxTreeDepth) too_deep(who, what);
    if (is_tree_entry(v))
      throw_errorf("{}: {}: a (KEY . TREE) entry must be an element of an association list, got {}", who,
                   what, error_value_string(v));
    if (!is_tree_branch(v)) {
      leaves++;
      if (is_number(v) || is_tensor(v) || (symbolic_ok && is_symbolic_value(v))) return;
      throw_errorf("{}: {}, leaf {}: expected a number or a tensor, got {}", who, what, leaves,
                   error_value_string(v));
    }
    int64_t n = branch_length(who, what, v);
    if (!is_vector(v)) check_entries(who, what, v, n);
    Value cursor = v;
    for (int64_t i = 0; i < n; i++) walk(child(v, i, cursor), depth + 1);
  }
};

void flatten(Value v, Value *out, int64_t &k) {
  if (!is_tree_branch(v)) {
    out[k++] = v;
    return;
  }
  int64_t n = is_vector(v) ? as<Vector>(v)->len : list_length(v);
  Value cursor = v;
  for (int64_t i = 0; i < n; i++) flatten(child(v, i, cursor), out, k);
}

std::string describe_branch(Value v) {
  if (!is_tree_branch(v)) return "a leaf";
  if (is_vector(v)) return fmt::format("a vector of {} trees", as<Vector>(v)->len);
  int64_t n = list_length(v);
  if (n < 0) return "an improper or circular list";
  if (is_named_branch(v)) return "an association list with keys " + key_list(v);
  return fmt::format("a list of {} trees", n);
}

// Do a skeleton's element and a value's element agree on being an entry, and on its key?
bool same_entry(Value skel_element, Value v_element) {
  if (!is_tree_entry(skel_element)) return !is_tree_entry(v_element);
  return is_tree_entry(v_element) && car(v_element) == car(skel_element);
}

// Compares `v` with `skel`; on a difference raises naming argument `arg`.
void match(const char *who, int arg, Value skel, Value v, int depth) {
  if (depth > kMaxTreeDepth) too_deep(who, argument_label(arg));
  bool skel_leaf = !is_tree_branch(skel);
  bool same_kind = skel_leaf ? !is_tree_branch(v)
                             : (is_vector(skel) ? is_vector(v) : (v == NIL || is_pair(v)) && !is_vector(v));
  int64_t n = 0;
  if (same_kind && !skel_leaf) {
    n = is_vector(skel) ? as<Vector>(skel)->len : list_length(skel);
    int64_t m = is_vector(v) ? as<Vector>(v)->len : list_length(v);
    same_kind = n == m;
  }
  if (same_kind && !skel_leaf && !is_vector(skel)) {
    // Keys are structure: the same keys in the same order, and no entry where the
    // skeleton has none (flatten would take the entry's subtree for a tree).
    for (Value sc = skel, vc = v; same_kind && is_pair(sc); sc = cdr(sc), vc = cdr(vc)) {
      same_kind = same_entry(car(sc), car(vc));
      if (!same_kind && !is_tree_entry(car(sc)))
        throw_errorf("{}: argument {}: expected {}, got the (KEY . TREE) entry {}", who, arg,
                     describe_branch(car(sc)), error_value_string(car(vc)));
    }
  }
  if (!same_kind)
    throw_errorf("{}: argument {}: expected {}, got {}", who, arg, describe_branch(skel),
                 error_value_string(v));
  if (skel_leaf) return;
  Value sc = skel, vc = v;
  for (int64_t i = 0; i < n; i++) match(who, arg, child(skel, i, sc), child(v, i, vc), depth + 1);
}

Value rebuild(Value skel, const Value *leaves, int64_t &k) {
  if (!is_tree_branch(skel)) return leaves[k++];
  if (is_vector(skel)) {
    int64_t n = as<Vector>(skel)->len;
    Value out = make_vector(n, FALSE_V);
    for (int64_t i = 0; i < n; i++)
      as<Vector>(out)->items[i] = rebuild(as<Vector>(skel)->items[i], leaves, k);
    return out;
  }
  ListBuilder b;
  for (Value c = skel; is_pair(c); c = cdr(c)) {
    Value e = car(c);
    b.push(is_tree_entry(e) ? cons(car(e), rebuild(cdr(e), leaves, k)) : rebuild(e, leaves, k));
  }
  return b.head;
}

// `v` has been checked (LeafCheck): finite depth, proper lists.
Value skeleton(Value v) {
  if (!is_tree_branch(v)) return TRUE_V;
  if (is_vector(v)) {
    int64_t n = as<Vector>(v)->len;
    Value out = make_vector(n, TRUE_V);
    for (int64_t i = 0; i < n; i++) as<Vector>(out)->items[i] = skeleton(as<Vector>(v)->items[i]);
    return out;
  }
  ListBuilder b;
  for (Value c = v; is_pair(c); c = cdr(c)) {
    Value e = car(c);
    b.push(is_tree_entry(e) ? cons(car(e), skeleton(cdr(e))) : skeleton(e));
  }
  return b.head;
}

TreeLayout *new_layout(int argc) {
  auto *t = static_cast<TreeLayout *>(gc_alloc(sizeof(TreeLayout)));
  t->nargs = argc;
  t->arg_skeletons = static_cast<Value *>(gc_alloc(sizeof(Value) * size_t(argc + 1)));
  t->first_leaf = static_cast<int64_t *>(gc_alloc_atomic(sizeof(int64_t) * size_t(argc + 1)));
  t->wrt = static_cast<int32_t *>(gc_alloc_atomic(sizeof(int32_t) * size_t(argc + 1)));
  t->nwrt = argc;
  for (int i = 0; i < argc; i++) t->wrt[i] = i;
  t->flat = true;
  t->grad = false;
  t->with_aux = false;
  t->out_skeleton = TRUE_V;
  return t;
}

}  // namespace

TreeLayout *layout_arguments(const char *who, int argc, const Value *args, int pos_offset, bool symbolic_ok) {
  TreeLayout *t = new_layout(argc);
  int64_t total = 0;
  for (int i = 0; i < argc; i++) {
    Value a = args[i];
    t->first_leaf[i] = total;
    if (!is_tree_branch(a)) {
      if (!is_number(a) && !is_tensor(a) && !(symbolic_ok && is_symbolic_value(a)))
        type_error(who, i + 1 + pos_offset, "a number or a tensor", a);
      t->arg_skeletons[i] = TRUE_V;
      total++;
      continue;
    }
    t->flat = false;
    std::string what = argument_label(i + 1);
    LeafCheck check{who, what, symbolic_ok};
    check.walk(a, 0);
    t->arg_skeletons[i] = skeleton(a);
    total += check.leaves;
  }
  t->first_leaf[argc] = total;
  return t;
}

TreeLayout *flat_layout(int argc, bool grad) {
  TreeLayout *t = new_layout(argc);
  for (int i = 0; i <= argc; i++) t->first_leaf[i] = i;
  for (int i = 0; i < argc; i++) t->arg_skeletons[i] = TRUE_V;
  t->grad = grad;
  return t;
}

std::vector<int64_t> wrt_leaves(const TreeLayout &t) {
  std::vector<int64_t> leaves;
  for (int32_t j = 0; j < t.nwrt; j++)
    for (int64_t k = t.first_leaf[t.wrt[j]]; k < t.first_leaf[t.wrt[j] + 1]; k++) leaves.push_back(k);
  return leaves;
}

void flatten_arguments(const TreeLayout &layout, const Value *args, Value *out) {
  int64_t k = 0;
  for (int i = 0; i < layout.nargs; i++) flatten(args[i], out, k);
}

void match_arguments(const char *who, const TreeLayout &layout, int argc, const Value *args) {
  for (int i = 0; i < argc; i++)
    if (layout.arg_skeletons[i] != TRUE_V || is_tree_branch(args[i]))
      match(who, i + 1, layout.arg_skeletons[i], args[i], 0);
}

int64_t tree_check(const char *who, const std::string &what, Value tree, bool symbolic_ok) {
  LeafCheck check{who, what, symbolic_ok};
  check.walk(tree, 0);
  return check.leaves;
}

Value tree_skeleton(Value checked_tree) { return skeleton(checked_tree); }

void tree_flatten(Value checked_tree, Value *out, int64_t &k) { flatten(checked_tree, out, k); }

int64_t skeleton_leaf_count(Value skel) {
  if (!is_tree_branch(skel)) return 1;
  int64_t n = 0;
  if (is_vector(skel)) {
    for (int64_t i = 0; i < as<Vector>(skel)->len; i++) n += skeleton_leaf_count(as<Vector>(skel)->items[i]);
    return n;
  }
  for (Value c = skel; is_pair(c); c = cdr(c)) n += skeleton_leaf_count(subtree(car(c)));
  return n;
}

Value tree_rebuild(Value skeleton, const Value *leaves, int64_t &k) { return rebuild(skeleton, leaves, k); }

Value assemble_results(const TreeLayout &t, const Value *outputs) {
  int64_t k = 0;
  if (!t.grad) return rebuild(t.out_skeleton, outputs, k);
  ListBuilder b;
  b.push(outputs[k++]);
  if (t.with_aux) b.push(rebuild(t.out_skeleton, outputs, k));
  for (int32_t j = 0; j < t.nwrt; j++) b.push(rebuild(t.arg_skeletons[t.wrt[j]], outputs, k));
  return b.head;
}

}  // namespace kiln

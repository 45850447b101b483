// tree.h — trees as the arguments and results of traced procedures (docs/graph.md,
// "Trees"). A tree is a number, a tensor, or a proper list or vector of trees; its
// leaves are numbered depth-first, left to right, and the leaves of all arguments
// in argument order are the graph's params.
//
// Invariants:
//   * A skeleton is a tree whose every leaf is #t. It keeps a tree's structure
//     without keeping its tensors alive; rebuilding from a skeleton and leaf
//     values takes the values in the order flattening produced them.
//   * A TreeLayout lives in GC memory (its Values are seen by the collector) and
//     is never changed after the build that filled it, so a kernel may keep one.
//   * Walking a tree is recursive, so trees are refused past kMaxTreeDepth levels
//     (a clear error, not a stack overflow on a hostile value).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/value.h"

namespace kiln {

constexpr int kMaxTreeDepth = 10000;

// NIL, a pair or a vector: something whose elements are trees.
bool is_tree_branch(Value v);
// A (KEY . TREE) pair with a symbol KEY: an element of an association list.
bool is_tree_entry(Value v);
// A list whose first element is an entry (an association list, if well formed).
bool is_named_branch(Value v);

// What a traced procedure's arguments and result look like, and which results a
// build returns: F's value (forward) or (LOSS [AUX] G...) (grad).
struct TreeLayout {
  int32_t nargs;
  Value *arg_skeletons;  // nargs skeletons
  int64_t *first_leaf;   // nargs + 1 entries: argument i's leaves are [first_leaf[i], first_leaf[i+1])
  bool flat;             // every argument is a single leaf (the fast path)
  bool grad;             // results are (LOSS [AUX] G...) rather than F's value
  bool with_aux;         // grad: F returns (LOSS . AUX)
  int32_t nwrt;          // grad: the arguments that get gradients, in this order
  int32_t *wrt;
  Value out_skeleton;  // forward: F's result's skeleton; with_aux: AUX's; set by the build
  int64_t nleaves() const { return first_leaf[nargs]; }
};

// Checks `argc` argument trees and returns their layout, with every argument
// getting a gradient (callers narrow `wrt`). Leaves must be numbers or tensors
// (or, with `symbolic_ok`, symbolic values). Messages name the caller `who` and
// number the arguments from 1; `pos_offset` is added for a top-level leaf's
// message, which uses the caller's own argument positions (`graph-eval: argument
// 2 must be a number or a tensor, got "a"`), while a leaf inside a tree is named
// by its argument and leaf number (`graph-grad: argument 1, leaf 2: expected a
// number or a tensor, got "a"`).
TreeLayout *layout_arguments(const char *who, int argc, const Value *args, int pos_offset, bool symbolic_ok);
// A layout of `argc` single leaves (graph-ir without example arguments, and the
// flat C++ entry points).
TreeLayout *flat_layout(int argc, bool grad);

// The leaf numbers of the arguments in layout.wrt, in that order (the params a
// grad build differentiates with respect to).
std::vector<int64_t> wrt_leaves(const TreeLayout &layout);

// The leaves of `args` (checked by layout_arguments or matched by
// match_arguments) in order, into `out` (layout.nleaves() entries).
void flatten_arguments(const TreeLayout &layout, const Value *args, Value *out);

// Does each of `args` have its argument's structure? Raises
// `WHO: argument N: expected a list of 2 trees, got (1.0)` style errors otherwise.
void match_arguments(const char *who, const TreeLayout &layout, int argc, const Value *args);

// Checks a tree (proper lists, depth, leaves numbers or tensors or, with
// `symbolic_ok`, symbolic values) and returns its leaf count. Errors name `what`:
// `WHO: the traced function's result, leaf 3: expected a number or a tensor, got #f`.
int64_t tree_check(const char *who, const std::string &what, Value tree, bool symbolic_ok);
// The skeleton of a checked tree (leaves replaced by #t).
Value tree_skeleton(Value checked_tree);
// The leaves of a checked tree into out[k], out[k+1], ...; advances k.
void tree_flatten(Value checked_tree, Value *out, int64_t &k);
// Number of leaves of a skeleton.
int64_t skeleton_leaf_count(Value skeleton);
// A new tree shaped like `skeleton` whose leaves are leaves[k], leaves[k+1], ...;
// advances k past them.
Value tree_rebuild(Value skeleton, const Value *leaves, int64_t &k);

// The Lisp value a build's outputs stand for, from one value per graph output:
// forward: F's result rebuilt; grad: (LOSS [AUX] G...), each G shaped like its argument.
Value assemble_results(const TreeLayout &layout, const Value *outputs);

}  // namespace kiln

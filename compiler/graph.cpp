// graph.cpp — recording nodes: shape inference and hash-consing (graph.h).
//
// Invariant: every node enters `nodes` through intern(), which returns the
// existing index when an identical node (same op, attributes, operands) was
// recorded before, so the graph never holds duplicates and stays topological
// (operands are always recorded before their users).
#include "compiler/graph.h"

#include <cstring>

#include "compiler/loop.h"
#include "runtime/error.h"
#include "runtime/gc.h"
#include "runtime/tensor.h"
#include "runtime/tensor_shapes.h"

namespace kiln {

static_assert(kFirstStructural + kStructuralOpCount == kOpCount);

// ---- hash-consing table: open addressing over node indices ------------------------
namespace {

uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

// Hashes what tells nodes apart; the shape only where it is an attribute rather
// than a function of the operands (node_same still compares everything).
uint64_t node_hash(const GraphNode &n) {
  uint64_t h = uint64_t(n.op) | uint64_t(n.is_number) << 8 | uint64_t(n.keepdims) << 9 |
               uint64_t(uint8_t(n.axis)) << 16 | uint64_t(n.index_use) << 24 |
               uint64_t(uint32_t(n.param_index)) << 32;
  h = mix(h, uint64_t(uint32_t(n.in[0])) | uint64_t(uint32_t(n.in[1])) << 32);
  h = mix(h, uint64_t(uint32_t(n.in[2])));
  if (n.op == Op::Const) {
    uint64_t bits;
    std::memcpy(&bits, &n.scalar, 8);
    h = mix(h, bits ^ reinterpret_cast<uint64_t>(n.const_data));
  }
  h = mix(h, uint64_t(n.offset));
  if (op_has(n.op, kAttrLoop)) h = mix(h, reinterpret_cast<uint64_t>(n.loop));
  if (op_has(n.op, kAttrShape) || op_has(n.op, kAttrRange)) {
    h = mix(h, uint64_t(n.shape.rank));
    for (int i = 0; i < n.shape.rank; i++) h = mix(h, uint64_t(n.shape.dim[i]));
  }
  if (op_has(n.op, kAttrPerm))
    for (int i = 0; i < n.shape.rank; i++) h = mix(h, uint64_t(n.perm[i]));
  // Avalanche (splitmix64's finaliser): mix() leaves high input bits, such as
  // param_index's, in the high bits, and the table indexes by the low ones, so
  // without this 30 000 params all probed one chain (quadratic tracing).
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return h;
}

bool node_same(const GraphNode &a, const GraphNode &b) {
  if (a.op != b.op || a.is_number != b.is_number || a.keepdims != b.keepdims || a.axis != b.axis ||
      a.index_use != b.index_use || a.param_index != b.param_index || a.const_data != b.const_data ||
      a.loop != b.loop || a.offset != b.offset || !(a.shape == b.shape))
    return false;
  for (int i = 0; i < 3; i++)
    if (a.in[i] != b.in[i]) return false;
  if (std::memcmp(&a.scalar, &b.scalar, 8) != 0) return false;
  if (op_has(a.op, kAttrPerm))
    for (int i = 0; i < a.shape.rank; i++)
      if (a.perm[i] != b.perm[i]) return false;
  return true;
}

}  // namespace

Graph::Graph() = default;

void Graph::clear() {
  nodes.clear();
  outputs.clear();
  num_params = 0;
  table_valid_ = false;
  for (int64_t i = 0; i < const_roots_len_; i++) const_roots_[i] = NOVALUE;
  const_roots_len_ = 0;
  loops_.clear();
}

void Graph::truncate(int32_t n) {
  nodes.resize(size_t(n));
  table_valid_ = false;
}

Graph::~Graph() {
  if (const_roots_) GC_FREE(const_roots_);
}

int32_t Graph::add_node_raw(const GraphNode &n) {
  checked_tensor_size(n.shape);
  if (n.loop) keep_loop(n.loop);
  nodes.push_back(n);
  table_valid_ = false;
  return int32_t(nodes.size() - 1);
}

void Graph::rehash() {
  size_t cap = 128;
  while (cap < nodes.size() * 4) cap *= 2;
  slots_.assign(cap, -1);
  used_ = 0;
  size_t mask = cap - 1;
  for (int32_t i = 0; i < int32_t(nodes.size()); i++) {
    size_t s = node_hash(nodes[size_t(i)]) & mask;
    while (slots_[s] >= 0) s = (s + 1) & mask;
    slots_[s] = i;
    used_++;
  }
  table_valid_ = true;
}

int32_t Graph::intern(GraphNode &n) {
  // Every later buffer of this node is sized from its shape, which a chain of
  // broadcasts can make wrap (each input only 2^20 elements).
  checked_tensor_size(n.shape);
  if (!table_valid_) rehash();
  std::vector<int32_t> &slots = slots_;
  size_t mask = slots.size() - 1;
  size_t s = node_hash(n) & mask;
  while (slots[s] >= 0) {
    if (node_same(nodes[size_t(slots[s])], n)) return slots[s];
    s = (s + 1) & mask;
  }
  if (n.loop) keep_loop(n.loop);
  nodes.push_back(n);
  int32_t id = int32_t(nodes.size() - 1);
  slots[s] = id;
  if (++used_ * 2 > int32_t(slots.size())) rehash();
  return id;
}

// ---- recording ----------------------------------------------------------------------

int32_t Graph::param(int index, const ArgSpec &spec) {
  GraphNode n;
  n.op = Op::Param;
  n.param_index = index;
  n.shape = spec.shape;
  n.is_number = spec.is_number;
  if (index >= num_params) num_params = index + 1;
  return intern(n);
}

int32_t Graph::constant(double x, bool is_number) {
  GraphNode n;
  n.op = Op::Const;
  n.scalar = x;
  n.is_number = is_number;
  return intern(n);
}

int32_t Graph::constant_tensor(Value tensor) {
  Tensor *t = tensor_of(tensor);
  if (t->shape.rank == 0) return constant(t->data[0], false);
  root_constant(tensor);
  t->h.flags |= kTensorDataShared;  // the kernel reads it in place
  GraphNode n;
  n.op = Op::Const;
  n.shape = t->shape;
  n.const_data = t->data;
  return intern(n);
}

void Graph::adopt_constants(const Graph &other) {
  for (int64_t i = 0; i < other.const_roots_len_; i++) root_constant(other.const_roots_[i]);
  for (const auto &l : other.loops_) loops_.push_back(l);
}

void Graph::keep_loop(const LoopBody *body) {
  for (const auto &l : loops_)
    if (l.get() == body) return;
  loops_.push_back(body->shared_from_this());
}

void Graph::root_constant(Value tensor) {
  if (const_roots_len_ == const_roots_cap_) {
    int64_t cap = const_roots_cap_ ? const_roots_cap_ * 2 : 8;
    auto *grown = static_cast<Value *>(gc_alloc_root(size_t(cap) * sizeof(Value)));
    for (int64_t i = 0; i < const_roots_len_; i++) grown[i] = const_roots_[i];
    if (const_roots_) GC_FREE(const_roots_);
    const_roots_ = grown;
    const_roots_cap_ = cap;
  }
  const_roots_[const_roots_len_++] = tensor;
}

int32_t Graph::binary(const char *who, Op op, int32_t a, int32_t b) {
  GraphNode n;
  n.op = op;
  n.in[0] = a;
  n.in[1] = b;
  const GraphNode &x = nodes[size_t(a)], &y = nodes[size_t(b)];
  if (!broadcast_shapes(x.shape, y.shape, n.shape))
    throw_errorf("{}: shapes {} and {} do not broadcast", who, shape_string(x.shape), shape_string(y.shape));
  n.is_number = x.is_number && y.is_number;
  return intern(n);
}

int32_t Graph::unary(Op op, int32_t x) {
  GraphNode n;
  n.op = op;
  n.in[0] = x;
  n.shape = nodes[size_t(x)].shape;
  n.is_number = nodes[size_t(x)].is_number;
  return intern(n);
}

int32_t Graph::select(const char *who, int32_t cond, int32_t a, int32_t b) {
  GraphNode n;
  n.op = Op::Select;
  n.in[0] = cond;
  n.in[1] = a;
  n.in[2] = b;
  const GraphNode &c = nodes[size_t(cond)], &x = nodes[size_t(a)], &y = nodes[size_t(b)];
  Shape ab;
  if (!broadcast_shapes(x.shape, y.shape, ab))
    throw_errorf("{}: shapes {} and {} do not broadcast", who, shape_string(x.shape), shape_string(y.shape));
  if (!broadcast_shapes(c.shape, ab, n.shape))
    throw_errorf("{}: shapes {} and {} do not broadcast", who, shape_string(c.shape), shape_string(ab));
  n.is_number = c.is_number && x.is_number && y.is_number;
  return intern(n);
}

int32_t Graph::reduce_all(Op op, int32_t x) {
  GraphNode n;
  n.op = op;
  n.in[0] = x;
  n.is_number = true;
  return intern(n);
}

int32_t Graph::reduce_axis(Op op, int32_t x, int axis, bool keepdims) {
  GraphNode n;
  n.op = op;
  n.in[0] = x;
  n.axis = int8_t(axis);
  n.keepdims = keepdims;
  n.shape = reduced_shape(nodes[size_t(x)].shape, axis, keepdims);
  return intern(n);
}

int32_t Graph::sum_to(int32_t g, const Shape &target) {
  if (nodes[size_t(g)].shape == target) return g;
  GraphNode n;
  n.op = Op::SumTo;
  n.in[0] = g;
  n.shape = target;
  return intern(n);
}

int32_t Graph::broadcast_to(int32_t x, const Shape &target) {
  if (nodes[size_t(x)].shape == target) return x;
  GraphNode n;
  n.op = Op::BroadcastTo;
  n.in[0] = x;
  n.shape = target;
  return intern(n);
}

int32_t Graph::matmul(const char *who, int32_t a, int32_t b) {
  const Shape &as = nodes[size_t(a)].shape, &bs = nodes[size_t(b)].shape;
  int r = as.rank;
  bool ok = r >= 2 && bs.rank == r && as.dim[r - 1] == bs.dim[r - 2];
  for (int i = 0; ok && i + 2 < r; i++) ok = as.dim[i] == bs.dim[i];
  if (!ok) throw_errorf("{}: inner dimensions differ ({} and {})", who, shape_string(as), shape_string(bs));
  GraphNode n;
  n.op = Op::Matmul;
  n.in[0] = a;
  n.in[1] = b;
  n.shape = as;
  n.shape.dim[r - 1] = bs.dim[r - 1];
  return intern(n);
}

int32_t Graph::transpose(int32_t x, const int *perm) {
  const Shape &s = nodes[size_t(x)].shape;
  GraphNode n;
  n.op = Op::Transpose;
  n.in[0] = x;
  n.shape.rank = s.rank;
  bool identity = true;
  for (int i = 0; i < s.rank; i++) {
    n.perm[i] = int8_t(perm[i]);
    n.shape.dim[i] = s.dim[perm[i]];
    if (perm[i] != i) identity = false;
  }
  if (identity) return x;
  return intern(n);
}

int32_t Graph::reshape(int32_t x, const Shape &s, bool is_number) {
  const GraphNode &src = nodes[size_t(x)];
  if (src.shape == s && src.is_number == is_number) return x;
  GraphNode n;
  n.op = Op::Reshape;
  n.in[0] = x;
  n.shape = s;
  n.is_number = is_number;
  return intern(n);
}

// Slice and Pad: the smaller tensor's entries sit at `start` along `axis` of the larger.
static GraphNode along_axis(Op op, int32_t x, int axis, int64_t start, const Shape &shape) {
  GraphNode n;
  n.op = op;
  n.in[0] = x;
  n.axis = int8_t(axis);
  n.offset = start;
  n.shape = shape;
  return n;
}

int32_t Graph::slice(int32_t x, int axis, int64_t start, int64_t len) {
  Shape s = nodes[size_t(x)].shape;
  if (start == 0 && len == s.dim[axis]) return x;
  s.dim[axis] = len;
  GraphNode n = along_axis(Op::Slice, x, axis, start, s);
  return intern(n);
}

int32_t Graph::pad(int32_t x, int axis, int64_t start, const Shape &target) {
  if (nodes[size_t(x)].shape == target) return x;
  GraphNode n = along_axis(Op::Pad, x, axis, start, target);
  return intern(n);
}

int32_t Graph::concat(int32_t a, int32_t b, int axis) {
  GraphNode n;
  n.op = Op::Concat;
  n.in[0] = a;
  n.in[1] = b;
  n.axis = int8_t(axis);
  n.shape = nodes[size_t(a)].shape;
  n.shape.dim[axis] += nodes[size_t(b)].shape.dim[axis];
  return intern(n);
}

int32_t Graph::max_mask(int32_t x, int axis) {
  GraphNode n;
  n.op = Op::MaxMask;
  n.in[0] = x;
  n.axis = int8_t(axis);
  n.shape = nodes[size_t(x)].shape;
  return intern(n);
}

int32_t Graph::argmax(int32_t x, int axis) {
  GraphNode n;
  n.op = Op::Argmax;
  n.in[0] = x;
  n.axis = int8_t(axis);
  n.shape = reduced_shape(nodes[size_t(x)].shape, axis, false);
  return intern(n);
}

int32_t Graph::take(int32_t x, int32_t idx, int axis, IndexUse use) {
  const GraphNode &xs = nodes[size_t(x)], &is = nodes[size_t(idx)];
  GraphNode n;
  n.op = Op::Take;
  n.in[0] = x;
  n.in[1] = idx;
  n.axis = int8_t(axis);
  n.index_use = use;
  n.shape = take_shape(xs.shape, is.shape, axis);
  if (is.op == Op::Const) {
    int64_t bad = k_bad_index(is.const_data ? is.const_data : &is.scalar, is.size(), xs.shape.dim[axis]);
    if (bad >= 0) take_index_error(use, is.const_at(bad), axis, xs.shape.dim[axis]);
  }
  return intern(n);
}

int32_t Graph::random(RandomKind kind, int32_t key, const Shape &shape) {
  const GraphNode &k = nodes[size_t(key)];
  uint64_t bits;
  if (k.op == Op::Const && !random_key_of_double(k.const_at(0), bits)) random_key_error(kind, k.const_at(0));
  GraphNode n;
  n.op = Op::Random;
  n.in[0] = key;
  n.axis = int8_t(kind);
  n.shape = shape;
  checked_tensor_size(n.shape);
  return intern(n);
}

int32_t Graph::scatter_add(int32_t g, int32_t idx, int axis, const Shape &target, IndexUse use) {
  GraphNode n;
  n.op = Op::ScatterAdd;
  n.in[0] = g;
  n.in[1] = idx;
  n.axis = int8_t(axis);
  n.index_use = use;
  n.shape = target;
  return intern(n);
}

int32_t Graph::allreduce(int32_t x, int kind, uint64_t signature) {
  GraphNode n;
  n.op = Op::Allreduce;
  n.in[0] = x;
  n.axis = int8_t(kind);
  n.offset = int64_t(signature);
  n.shape = nodes[size_t(x)].shape;
  n.is_number = nodes[size_t(x)].is_number;
  return intern(n);
}

}  // namespace kiln

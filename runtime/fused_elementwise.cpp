// fused_elementwise.cpp — one pass over the elements for a nest of element-wise
// tensor builtin calls (see the header for when it runs).
#include "runtime/fused_elementwise.h"

#include <algorithm>

#include "runtime/eval.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops_dispatch.h"

namespace kiln {

namespace {

// A fusable builtin, by its object: whatever name holds it, its calls fuse.
struct Fusable {
  Value builtin;  // kept here too, so a redefinition cannot free it and reuse its address
  bool unary;
  uint8_t op;
};

constexpr int kMaxFusable = 32;
Fusable g_fusable[kMaxFusable];
int g_fusable_count = 0;

void register_fusable(const char *name, bool unary, uint8_t op) {
  if (g_fusable_count == kMaxFusable) throw_errorf("internal: too many fusable builtins ({})", name);
  g_fusable[g_fusable_count++] = Fusable{sym(intern(name))->global, unary, op};
}

// The direct call's builtin as a fusable entry, or -1. (GlobalBuiltinCall has
// checked that the builtin accepts the call's argument count.)
int fusable_entry(const GlobalBuiltinCall *call) {
  for (int e = 0; e < g_fusable_count; e++)
    if (g_fusable[e].builtin == call->builtin) return e;
  return -1;
}

enum class LeafKind : uint8_t { Constant, Local0, Local1, LocalN, Global };

bool leaf_kind_of(Node *n, LeafKind &kind) {
  if (dynamic_cast<Const *>(n)) kind = LeafKind::Constant;
  else if (dynamic_cast<LocalRef0 *>(n)) kind = LeafKind::Local0;
  else if (dynamic_cast<LocalRef1 *>(n)) kind = LeafKind::Local1;
  else if (dynamic_cast<LocalRefN *>(n)) kind = LeafKind::LocalN;
  else if (dynamic_cast<GlobalRef *>(n)) kind = LeafKind::Global;
  else return false;
  return true;
}

// A leaf's value, if reading it cannot raise.
bool peek_leaf(Node *n, LeafKind kind, Frame *env, Value &out) {
  switch (kind) {
  case LeafKind::Constant: out = static_cast<Const *>(n)->v; return true;
  case LeafKind::Local0: out = static_cast<LocalRef0 *>(n)->value(env); break;
  case LeafKind::Local1: out = static_cast<LocalRef1 *>(n)->value(env); break;
  case LeafKind::LocalN: out = static_cast<LocalRefN *>(n)->value(env); break;
  case LeafKind::Global: out = static_cast<GlobalRef *>(n)->s->global; return out != NOVALUE;
  }
  return out != UNINIT;
}

constexpr int kMaxSteps = 8;
constexpr int kMaxLeaves = kMaxSteps + 1;
// Elements per block: each step's block of intermediates stays in L1.
constexpr int64_t kBlock = 256;

// An operand: a step's result (>= 0) or leaf -1 - operand (< 0).
struct Step {
  const GlobalBuiltinCall *call;  // its name must still hold its builtin
  int8_t entry;                   // index into g_fusable
  int8_t a, b;                    // b unused for unary steps
};

struct FusedElementwise : Node {
  Node *unfused;
  Node *leaves[kMaxLeaves];
  LeafKind leaf_kinds[kMaxLeaves];
  Step steps[kMaxSteps];  // operands before their users; the last step is the root
  int nleaves = 0, nsteps = 0;

  explicit FusedElementwise(Node *u) : unfused(u) {}

  // Adds the tree of a call of fusable builtin `entry` with its operands;
  // returns its operand index, or INT8_MIN when it cannot be fused.
  int add_call(const GlobalBuiltinCall *call, int entry) {
    int8_t ops[2] = {0, 0};
    for (int i = 0; i < call->argc; i++) {
      int o = add_operand(call->args[i]);
      if (o == INT8_MIN) return INT8_MIN;
      ops[i] = int8_t(o);
    }
    if (nsteps == kMaxSteps) return INT8_MIN;
    steps[nsteps] = Step{call, int8_t(entry), ops[0], ops[1]};
    return nsteps++;
  }
  int add_operand(Node *n) {
    if (auto *call = dynamic_cast<GlobalBuiltinCall *>(n)) {
      int entry = fusable_entry(call);
      return entry < 0 ? INT8_MIN : add_call(call, entry);
    }
    LeafKind kind;
    if (!leaf_kind_of(n, kind) || nleaves == kMaxLeaves) return INT8_MIN;
    leaves[nleaves] = n;
    leaf_kinds[nleaves] = kind;
    return -1 - nleaves++;
  }

  Value eval(Frame *env) override;
};

Value FusedElementwise::eval(Frame *env) {
  // A jit trace notes the variables it reads: the unfused nodes do that.
  if (g_global_reads) [[unlikely]]
    return unfused->eval(env);
  Value values[kMaxLeaves];
  for (int i = 0; i < nleaves; i++)
    if (!peek_leaf(leaves[i], leaf_kinds[i], env, values[i])) return unfused->eval(env);
  for (int s = 0; s < nsteps; s++)
    if (steps[s].call->s->global != steps[s].call->builtin) return unfused->eval(env);
  const double *data[kMaxLeaves];
  double scalars[kMaxLeaves];
  bool whole[kMaxLeaves];  // a tensor of rank > 0: one element per output element
  Shape shape;
  bool shaped = false;
  for (int i = 0; i < nleaves; i++) {
    Value v = values[i];
    whole[i] = false;
    if (is_tensor(v) && tensor_of(v)->shape.rank > 0) {
      const Tensor *t = tensor_of(v);
      if (shaped && !(t->shape == shape)) return unfused->eval(env);
      shape = t->shape;
      shaped = true;
      whole[i] = true;
      data[i] = t->data;
      continue;
    }
    if (is_tensor(v)) {
      scalars[i] = tensor_of(v)->data[0];
    } else if (is_number(v)) {
      scalars[i] = number_as_double(v);
    } else {
      return unfused->eval(env);
    }
    data[i] = &scalars[i];
  }
  // A call on numbers only gives a number (NaNs made canonical), not a block of
  // doubles: a nest with such a step (all-number nests included) runs as the calls.
  bool number_step[kMaxSteps];
  for (int s = 0; s < nsteps; s++) {
    auto is_number_operand = [&](int o) { return o >= 0 ? number_step[o] : is_number(values[-1 - o]); };
    const Step &st = steps[s];
    number_step[s] = is_number_operand(st.a) && (g_fusable[st.entry].unary || is_number_operand(st.b));
    if (number_step[s]) return unfused->eval(env);
  }

  g_site = this;
  Tensor *out = alloc_tensor(shape);
  const SimdOps &K = simd();
  double blocks[kMaxSteps - 1][kBlock];
  for (int64_t off = 0; off < out->size; off += kBlock) {
    check_interrupt();  // a volatile load per block: 10^8 elements take seconds
    int64_t len = std::min(kBlock, out->size - off);
    auto operand = [&](int o, int64_t &stride) -> const double * {
      if (o >= 0) {
        stride = 1;
        return blocks[o];
      }
      int leaf = -1 - o;
      stride = whole[leaf] ? 1 : 0;
      return whole[leaf] ? data[leaf] + off : data[leaf];
    };
    for (int s = 0; s < nsteps; s++) {
      const Step &st = steps[s];
      const Fusable &f = g_fusable[st.entry];
      double *dst = s == nsteps - 1 ? out->data + off : blocks[s];
      int64_t sa, sb;
      const double *a = operand(st.a, sa);
      if (!f.unary) {
        const double *b = operand(st.b, sb);
        K.binary_inner(BinaryOp(f.op), a, sa, b, sb, dst, len);
      } else if (sa == 1) {
        K.unary(UnaryOp(f.op), a, len, dst);
      } else {  // of a scalar leaf: one value, as the builtin computes it
        K.unary(UnaryOp(f.op), a, 1, dst);
        std::fill(dst + 1, dst + len, dst[0]);
      }
    }
  }
  return from_ptr(out);
}

}  // namespace

void register_fusable_binary(const char *name, BinaryOp op) { register_fusable(name, false, uint8_t(op)); }
void register_fusable_unary(const char *name, UnaryOp op) { register_fusable(name, true, uint8_t(op)); }

Node *fuse_elementwise_call(Node *call) {
  auto *direct = dynamic_cast<GlobalBuiltinCall *>(call);
  int entry = direct ? fusable_entry(direct) : -1;
  if (entry < 0) return call;
  auto *fused = new FusedElementwise(call);
  if (fused->add_call(direct, entry) == INT8_MIN || fused->nsteps < 2) return call;
  fused->loc = call->loc;
  return fused;
}

}  // namespace kiln

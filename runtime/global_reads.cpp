// global_reads.cpp — recording the top-level variables a trace reads (global_reads.h).
#include "runtime/global_reads.h"

#include "runtime/equal.h"
#include "runtime/gc.h"

namespace kiln {

uint64_t g_global_epoch = 0;
GlobalReadLog *g_global_reads = nullptr;

void note_global_read(Symbol *s) {
  if (g_global_reads->seen.insert(s).second) g_global_reads->order.push_back(s);
}

GlobalReadRecorder::GlobalReadRecorder() : outer_(g_global_reads) { g_global_reads = &log_; }

GlobalReadRecorder::~GlobalReadRecorder() {
  g_global_reads = outer_;
  if (outer_)
    for (Symbol *s : log_.order) note_global_read(s);
}

Value GlobalReadRecorder::snapshot() const {
  if (log_.order.empty()) return NIL;
  Value v = make_vector(int64_t(log_.order.size()) * 2, NIL);
  Vector *out = as<Vector>(v);
  for (size_t i = 0; i < log_.order.size(); i++) {
    out->items[2 * i] = from_ptr(log_.order[i]);
    out->items[2 * i + 1] = log_.order[i]->global;
  }
  return v;
}

bool globals_unchanged(Value snapshot) {
  if (snapshot == NIL) return true;
  Vector *deps = as<Vector>(snapshot);
  for (int64_t i = 0; i < deps->len; i += 2) {
    Value now = sym(deps->items[i])->global;
    Value then = deps->items[i + 1];
    if (now == then) continue;
    if (!eqv(now, then)) return false;
    deps->items[i + 1] = now;
  }
  return true;
}

}  // namespace kiln

// random_keys.cpp — keys and counter-based draws (random_keys.h).
#include "runtime/random_keys.h"

#include <cmath>

#include "runtime/error.h"
#include "runtime/number.h"
#include "runtime/object.h"
#include "runtime/tensor_ops.h"
#include "runtime/threadpool.h"

namespace kiln {

double random_normal(uint64_t key, uint64_t i) {
  uint64_t pair = i / 2;
  double u1 = 1.0 - random_uniform(key, 2 * pair);  // (0, 1]: log is finite
  double u2 = random_uniform(key, 2 * pair + 1);
  double r = std::sqrt(-2.0 * std::log(u1));
  double theta = random_formula::kTwoPi * u2;
  return (i & 1) ? r * std::sin(theta) : r * std::cos(theta);
}

bool random_key_of_double(double d, uint64_t &key) {
  // The range test first, so the conversion never overflows (NaN fails it).
  if (!(d >= -0x1.0p63 && d < 0x1.0p63)) return false;
  int64_t k = int64_t(d);
  if (double(k) != d) return false;
  key = uint64_t(k);
  return true;
}

const char *random_kind_name(RandomKind kind) {
  switch (kind) {
  case RandomKind::Uniform: return "uniform";
  case RandomKind::Normal: return "normal";
  case RandomKind::Split: return "split";
  case RandomKind::Dropout: return "dropout";
  }
  return "random";
}

static const char *kind_name(RandomKind kind, int &pos) {
  switch (kind) {
  case RandomKind::Uniform: pos = 2; return "tensor-rand";
  case RandomKind::Normal: pos = 2; return "tensor-randn";
  case RandomKind::Split: pos = 1; return "random-split";
  case RandomKind::Dropout: pos = 3; return "dropout";
  }
  pos = 0;
  return "random";
}

void random_key_error_at(const char *who, int pos, Value key) { type_error(who, pos, "an integer key", key); }

void random_key_error(RandomKind kind, double key) {
  int pos;
  const char *who = kind_name(kind, pos);
  random_key_error_at(who, pos, make_double(key));
}

uint64_t arg_random_key(const char *who, int pos, Value v) {
  if (is_int(v)) return uint64_t(int_of(v));
  uint64_t key;
  if (is_double(v) && random_key_of_double(double_of(v), key)) return key;
  random_key_error_at(who, pos, v);
}

int64_t random_split_count(Value n) {
  if (!is_int(n) || int_of(n) < 1) type_error("random-split", 2, "a positive integer", n);
  return int_of(n);
}

double dropout_rate(Value rate) {
  if (!is_number(rate)) type_error("dropout", 2, "a number", rate);
  double r = number_as_double(rate);
  if (!(r >= 0.0 && r < 1.0))
    throw_errorf("dropout: RATE must be in [0, 1), got {}", error_value_string(rate));
  return r;
}

namespace {

struct RandomJob {
  RandomKind kind;
  uint64_t key;
  double *out;
  int64_t lo, hi, per_chunk;
};

void random_range(RandomKind kind, uint64_t key, double *out, int64_t lo, int64_t hi) {
  switch (kind) {
  case RandomKind::Uniform:
  case RandomKind::Dropout:
    for (int64_t i = lo; i < hi; i++) out[i] = random_uniform(key, uint64_t(i));
    return;
  case RandomKind::Normal:
    for (int64_t i = lo; i < hi; i++) out[i] = random_normal(key, uint64_t(i));
    return;
  case RandomKind::Split:
    for (int64_t i = lo; i < hi; i++) out[i] = double(int64_t(random_split(key, uint64_t(i))));
    return;
  }
}

void random_chunk(void *ctx, int64_t chunk) {
  auto *j = static_cast<RandomJob *>(ctx);
  int64_t lo = j->lo + chunk * j->per_chunk, hi = lo + j->per_chunk < j->hi ? lo + j->per_chunk : j->hi;
  random_range(j->kind, j->key, j->out, lo, hi);
}

}  // namespace

void k_random(RandomKind kind, uint64_t key, double *out, int64_t lo, int64_t hi) {
  // Every element stands alone, so chunks on other threads cannot change a bit.
  constexpr int64_t kChunk = int64_t(1) << 14;
  int threads = compute_threads();
  if (threads <= 1 || hi - lo < 2 * kChunk) {
    random_range(kind, key, out, lo, hi);
    return;
  }
  RandomJob job{kind, key, out, lo, hi, kChunk};
  parallel_for((hi - lo + kChunk - 1) / kChunk, threads, random_chunk, &job);
}

}  // namespace kiln

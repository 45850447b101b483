// exact.cpp — exact integers and rationals (exact.h): GMP views and results,
// exact arithmetic and comparison, and correctly rounded conversion to doubles.
#include "runtime/exact.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "runtime/error.h"
#include "runtime/eval.h"
#include "runtime/exact_worker.h"
#include "runtime/gc.h"
#include "runtime/number.h"

namespace kiln {

static_assert(sizeof(mp_limb_t) == sizeof(uint64_t), "Bignum limbs are GMP limbs");

void check_exact_bits(uint64_t bits) {
  if (bits > kMaxExactBits) throw_error("out of memory: an exact result of more than 2^31 bits");
}

// Points z at v's magnitude and sign without copying; *small holds a fixnum's limb.
static void view_integer(mpz_ptr z, mp_limb_t *small, Value v) {
  if (is_fixnum(v)) {
    int64_t n = fixnum_of(v);
    *small = n < 0 ? 0 - uint64_t(n) : uint64_t(n);
    mpz_roinit_n(z, small, n < 0 ? -1 : (n > 0 ? 1 : 0));
  } else {
    const Bignum *b = as<Bignum>(v);
    mpz_roinit_n(z, reinterpret_cast<const mp_limb_t *>(b->limbs), b->size);
  }
}

IntView::IntView(Value v) { view_integer(z_, &small_, v); }

RatView::RatView(Value v) {
  if (is_ratnum(v)) {
    view_integer(mpq_numref(q_), &num_small_, ratnum_num(v));
    view_integer(mpq_denref(q_), &den_small_, ratnum_den(v));
  } else {
    view_integer(mpq_numref(q_), &num_small_, v);
    den_small_ = 1;
    mpz_roinit_n(mpq_denref(q_), &den_small_, 1);
  }
}

Value value_of_mpz(mpz_srcptr z) {
  if (mpz_fits_slong_p(z)) return make_int(mpz_get_si(z));
  size_t n = mpz_size(z);
  check_exact_bits(uint64_t(n) * 64 - 63);
  Bignum *b = static_cast<Bignum *>(gc_alloc_atomic(alloc_bytes(n, sizeof(uint64_t), sizeof(Bignum))));
  b->h = ObjHeader{T_BIGNUM, 0, 0, 0};
  b->size = mpz_sgn(z) < 0 ? -int32_t(n) : int32_t(n);
  b->spare = 0;
  // Copying hundreds of megabytes takes seconds while the pages fault in
  // (longer on a busy machine): in chunks, polling for Ctrl-C between them.
  const mp_limb_t *src = mpz_limbs_read(z);
  fill_in_polled_chunks(int64_t(n), int64_t(1) << 20, [&](int64_t lo, int64_t hi) {
    std::memcpy(b->limbs + lo, src + lo, size_t(hi - lo) * sizeof(uint64_t));
  });
  return from_ptr(b);
}

// num/den already in lowest terms with den > 1.
static Value make_ratnum(Value num, Value den) {
  Ratnum *r = alloc_obj<Ratnum>(T_RATNUM);
  r->num = num;
  r->den = den;
  return from_ptr(r);
}

Value value_of_mpq(mpq_srcptr q) {
  if (mpz_cmp_ui(mpq_denref(q), 1) == 0) return value_of_mpz(mpq_numref(q));
  Value num = value_of_mpz(mpq_numref(q));
  Value den = value_of_mpz(mpq_denref(q));
  return make_ratnum(num, den);
}

Value value_of_int128(__int128 n) {
  if (n >= INT64_MIN && n <= INT64_MAX) return make_int(int64_t(n));
  unsigned __int128 m = n < 0 ? 0 - (unsigned __int128)n : (unsigned __int128)n;
  mp_limb_t limbs[2] = {mp_limb_t(uint64_t(m)), mp_limb_t(uint64_t(m >> 64))};
  mpz_t z;
  mpz_roinit_n(z, limbs, n < 0 ? -2 : 2);
  return value_of_mpz(z);
}

static int64_t gcd64(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0 - uint64_t(a) : uint64_t(a), y = b < 0 ? 0 - uint64_t(b) : uint64_t(b);
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return int64_t(x);  // both fixnums, so the gcd fits
}

Value make_ratio(Value num, Value den) {
  if (is_fixnum(num) && is_fixnum(den)) {
    int64_t n = fixnum_of(num), d = fixnum_of(den);
    int64_t g = gcd64(n, d);
    n /= g;
    d /= g;
    if (d < 0) n = -n, d = -d;
    if (d == 1) return make_int(n);
    return make_ratnum(make_int(n), make_int(d));
  }
  Mpq q;
  mpz_set(mpq_numref(q.q), IntView(num));
  mpz_set(mpq_denref(q.q), IntView(den));
  mpq_canonicalize(q);
  return value_of_mpq(q);
}

uint64_t exact_integer_bits(Value v) {
  if (is_fixnum(v)) {
    int64_t n = fixnum_of(v);
    uint64_t m = n < 0 ? 0 - uint64_t(n) : uint64_t(n);
    return m ? 64 - uint64_t(__builtin_clzll(m)) : 0;
  }
  const Bignum *b = as<Bignum>(v);
  size_t n = size_t(b->size < 0 ? -b->size : b->size);
  return uint64_t(n) * 64 - uint64_t(__builtin_clzll(b->limbs[n - 1]));
}

// Bits of numerator plus denominator: a bound on the bits an operation on
// two such numbers produces, checked before GMP allocates.
static uint64_t exact_bits(Value v) {
  if (is_ratnum(v)) return exact_integer_bits(ratnum_num(v)) + exact_integer_bits(ratnum_den(v));
  return exact_integer_bits(v);
}

int exact_sign(Value v) {
  if (is_fixnum(v)) return fixnum_of(v) < 0 ? -1 : (fixnum_of(v) > 0 ? 1 : 0);
  if (is_ratnum(v)) return exact_sign(ratnum_num(v));
  return as<Bignum>(v)->size < 0 ? -1 : 1;
}

static int sign3(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

int compare_exact(Value a, Value b) {
  if (is_fixnum(a) && is_fixnum(b))
    return sign3((fixnum_of(a) > fixnum_of(b)) - (fixnum_of(a) < fixnum_of(b)));
  if (!is_ratnum(a) && !is_ratnum(b)) return sign3(mpz_cmp(IntView(a), IntView(b)));
  return sign3(mpq_cmp(RatView(a), RatView(b)));
}

int compare_exact_double(Value a, double d) {
  if (std::isinf(d)) return d > 0 ? -1 : 1;
  if (is_fixnum(a)) {  // |a| < 2^49 converts exactly
    double x = double(fixnum_of(a));
    return x < d ? -1 : (x > d ? 1 : 0);
  }
  Mpq dq;
  mpq_set_d(dq, d);  // exact
  return sign3(mpq_cmp(RatView(a), dq));
}

Value exact_add(Value a, Value b) {
  if (is_fixnum(a) && is_fixnum(b)) return make_int(fixnum_of(a) + fixnum_of(b));
  if (!is_ratnum(a) && !is_ratnum(b)) {
    if (exact_job_wanted(std::max(exact_integer_bits(a), exact_integer_bits(b))))
      return run_exact_job(a, b, [](mpz_ptr out, mpz_srcptr x, mpz_srcptr y, const std::atomic<bool> &) {
        mpz_add(out, x, y);
      });
    Mpz r;
    mpz_add(r, IntView(a), IntView(b));
    return value_of_mpz(r);
  }
  check_exact_bits(exact_bits(a) + exact_bits(b));
  Mpq r;
  mpq_add(r, RatView(a), RatView(b));
  return value_of_mpq(r);
}

Value exact_sub(Value a, Value b) {
  if (is_fixnum(a) && is_fixnum(b)) return make_int(fixnum_of(a) - fixnum_of(b));
  if (!is_ratnum(a) && !is_ratnum(b)) {
    if (exact_job_wanted(std::max(exact_integer_bits(a), exact_integer_bits(b))))
      return run_exact_job(a, b, [](mpz_ptr out, mpz_srcptr x, mpz_srcptr y, const std::atomic<bool> &) {
        mpz_sub(out, x, y);
      });
    Mpz r;
    mpz_sub(r, IntView(a), IntView(b));
    return value_of_mpz(r);
  }
  check_exact_bits(exact_bits(a) + exact_bits(b));
  Mpq r;
  mpq_sub(r, RatView(a), RatView(b));
  return value_of_mpq(r);
}

Value exact_mul(Value a, Value b) {
  if (is_fixnum(a) && is_fixnum(b)) return value_of_int128(__int128(fixnum_of(a)) * fixnum_of(b));
  check_exact_bits(exact_bits(a) + exact_bits(b));
  if (!is_ratnum(a) && !is_ratnum(b)) {
    if (exact_job_wanted(exact_integer_bits(a) + exact_integer_bits(b)))
      return run_exact_job(a, b, [](mpz_ptr out, mpz_srcptr x, mpz_srcptr y, const std::atomic<bool> &) {
        mpz_mul(out, x, y);
      });
    Mpz r;
    mpz_mul(r, IntView(a), IntView(b));
    return value_of_mpz(r);
  }
  Mpq r;
  mpq_mul(r, RatView(a), RatView(b));
  return value_of_mpq(r);
}

Value exact_div(Value a, Value b) {
  if (!is_ratnum(a) && !is_ratnum(b)) return make_ratio(a, b);
  check_exact_bits(exact_bits(a) + exact_bits(b));
  Mpq r;
  mpq_div(r, RatView(a), RatView(b));
  return value_of_mpq(r);
}

Value exact_negate(Value a) {
  if (is_fixnum(a)) return make_int(-fixnum_of(a));
  if (is_ratnum(a)) {
    Value num = exact_negate(ratnum_num(a));
    return make_ratnum(num, ratnum_den(a));
  }
  Mpz r;
  mpz_neg(r, IntView(a));
  return value_of_mpz(r);
}

double round_scaled_to_double(mpz_srcptr q, bool sticky, int64_t exp2) {
  if (mpz_sgn(q) == 0) return 0.0;
  int64_t top = int64_t(mpz_sizeinbase(q, 2)) - 1 + exp2;  // exponent of the leading bit
  if (top > 1100) return HUGE_VAL;
  int64_t last = std::max<int64_t>(top - 52, -1074);  // exponent of the result's last bit
  int64_t drop = last - exp2;
  if (drop <= 0)
    return std::ldexp(mpz_get_d(q), int(exp2));  // fits: exact (callers give >= 55 bits when sticky)
  Mpz m;
  mpz_tdiv_q_2exp(m, q, mp_bitcnt_t(drop));
  bool half = mpz_tstbit(q, mp_bitcnt_t(drop - 1));
  bool below_half = sticky || mpz_scan1(q, 0) < mp_bitcnt_t(drop - 1);
  uint64_t mantissa = mpz_get_ui(m) + uint64_t(half && (below_half || mpz_odd_p(m.z)));
  return std::ldexp(double(mantissa), int(last));  // mantissa <= 2^53: exact before scaling
}

// floor(n * 2^shift / d) and whether it left a remainder, for n >= 0, d > 0.
static bool scaled_quotient(mpz_ptr quot, mpz_srcptr n, mpz_srcptr d, int64_t shift) {
  Mpz num, den, rem;
  if (shift >= 0) {
    mpz_mul_2exp(num, n, mp_bitcnt_t(shift));
    mpz_fdiv_qr(quot, rem, num, d);
  } else {
    mpz_mul_2exp(den, d, mp_bitcnt_t(-shift));
    mpz_fdiv_qr(quot, rem, n, den);
  }
  return mpz_sgn(rem.z) != 0;
}

double mpq_to_double(mpq_srcptr q) {
  int sign = mpq_sgn(q);
  if (sign == 0) return 0.0;
  mpz_t n;
  mpz_roinit_n(n, mpz_limbs_read(mpq_numref(q)), mp_size_t(mpz_size(mpq_numref(q))));  // |num|
  int64_t shift = 56 - (int64_t(mpz_sizeinbase(n, 2)) - int64_t(mpz_sizeinbase(mpq_denref(q), 2)));
  Mpz quot;
  bool sticky = scaled_quotient(quot, n, mpq_denref(q), shift);
  double d = round_scaled_to_double(quot, sticky, -shift);
  return sign < 0 ? -d : d;
}

double exact_sqrt_to_double(mpq_srcptr q) {
  if (mpq_sgn(q) == 0) return 0.0;
  // sqrt(q) = sqrt(q * 4^k) / 2^k with k chosen so the integer square root has
  // at least 55 bits; floor(sqrt(floor(x))) = floor(sqrt(x)) for x >= 0.
  int64_t lead = int64_t(mpz_sizeinbase(mpq_numref(q), 2)) - int64_t(mpz_sizeinbase(mpq_denref(q), 2));
  int64_t k = (112 - lead + 1) / 2 + 1;
  Mpz t, root, rem;
  bool sticky = scaled_quotient(t, mpq_numref(q), mpq_denref(q), 2 * k);
  mpz_sqrtrem(root, rem, t);
  return round_scaled_to_double(root, sticky || mpz_sgn(rem.z) != 0, -k);
}

double exact_to_double(Value v) {
  if (is_fixnum(v)) return double(fixnum_of(v));
  if (is_ratnum(v)) return mpq_to_double(RatView(v));
  const Bignum *b = as<Bignum>(v);
  mpz_t mag;
  mpz_roinit_n(mag, reinterpret_cast<const mp_limb_t *>(b->limbs), b->size < 0 ? -b->size : b->size);
  double d = round_scaled_to_double(mag, false, 0);
  return b->size < 0 ? -d : d;
}

// log of an exact integer > 0 that may be beyond the double range.
static double integer_log(Value v) {
  double d = exact_to_double(v);
  if (std::isfinite(d)) return std::log(d);
  long e;
  double m = mpz_get_d_2exp(&e, IntView(v));  // v = m * 2^e, m in [0.5, 1)
  return std::log(m) + double(e) * M_LN2;
}

double exact_log(Value v) {
  double d = exact_to_double(v);
  if (std::isfinite(d) && d > 0 && std::isnormal(d)) return std::log(d);
  if (is_ratnum(v)) return integer_log(ratnum_num(v)) - integer_log(ratnum_den(v));
  return integer_log(v);
}

Value exact_of_finite_double(double d) {
  if (d == std::trunc(d) && std::fabs(d) < 0x1p63) return make_int(int64_t(d));
  Mpq q;
  mpq_set_d(q, d);
  mpq_canonicalize(q);
  return value_of_mpq(q);
}

// ---- big integers to digits --------------------------------------------------
//
// mpz_get_str on a 2^31-bit integer takes minutes in base 10 (GMP cannot be
// interrupted), so a big integer's digits are made by divide and conquer on a
// worker thread: the integer is split by radix^(L 2^i) into halves of known
// digit counts, each half in turn, down to leaves of at most 2^17 bits that
// mpz_get_str converts at once. The worker checks a cancel flag before every
// GMP step; the evaluator's thread waits for it polling for Ctrl-C, and on an
// interrupt sets the flag and leaves it to stop after its current step. The
// worker holds its own copy of the integer (malloc memory, like every GMP
// temporary), never GC memory.

// Bits from which a conversion goes to the worker (below: well under 10 ms).
constexpr size_t kThreadedDigitsBits = size_t(1) << 20;
// Bits of the smallest power (radix^L), so leaves are under twice that.
constexpr size_t kLeafBits = size_t(1) << 16;
static_assert(kThreadedDigitsBits > 2 * kLeafBits, "the first power is below every integer converted");

namespace {

struct DigitsJob {
  Mpz z;  // |the integer|
  int radix = 10;
  bool negative = false;
  std::string out;
  std::atomic<bool> cancel{false};
  std::mutex m;
  std::condition_variable cv;
  bool done = false, failed = false;
};

class DigitsWriter {
 public:
  explicit DigitsWriter(DigitsJob &job) : job_(job) {}

  void run() {
    size_t leaf_digits = std::max<size_t>(1, size_t(double(kLeafBits) / std::log2(double(job_.radix))));
    powers_.emplace_back(std::make_unique<Mpz>());
    mpz_ui_pow_ui(*powers_.back(), unsigned(job_.radix), leaf_digits);
    digits_.push_back(leaf_digits);
    // radix^(L 2^i) while it is at most |z|: then |z| < the next square.
    size_t zbits = mpz_sizeinbase(job_.z, 2);
    while (true) {
      if (job_.cancel) return;
      // The square has 2b-1 or 2b bits: past |z| without computing it when 2b-1 is.
      if (2 * mpz_sizeinbase(*powers_.back(), 2) - 1 > zbits) break;
      auto next = std::make_unique<Mpz>();
      mpz_mul(*next, *powers_.back(), *powers_.back());
      if (mpz_cmpabs(*next, job_.z) > 0) break;
      powers_.push_back(std::move(next));
      digits_.push_back(digits_.back() * 2);
    }
    job_.out.reserve(mpz_sizeinbase(job_.z, job_.radix) + 1);
    if (job_.negative) job_.out += '-';         // here: inserting it later would move every digit
    write(job_.z, int(powers_.size()) - 1, 0);  // powers_[0] <= |z|: |z| has over 2^20 bits
  }

 private:
  // Appends z's digits, left-padded with zeros to `width` (0: no padding);
  // z < powers_[level]^2.
  void write(mpz_srcptr z, int level, size_t width) {
    if (job_.cancel) return;
    if (level < 0) {
      leaf(z, width);
      return;
    }
    if (width == 0 && mpz_cmp(z, *powers_[size_t(level)]) < 0) {
      write(z, level - 1, 0);
      return;
    }
    Mpz q, r;
    mpz_tdiv_qr(q, r, z, *powers_[size_t(level)]);
    size_t low = digits_[size_t(level)];
    write(q, level - 1, width ? width - low : 0);
    write(r, level - 1, low);
  }

  void leaf(mpz_srcptr z, size_t width) {
    std::string s(mpz_sizeinbase(z, job_.radix) + 2, '\0');
    mpz_get_str(s.data(), job_.radix, z);
    s.resize(std::strlen(s.c_str()));
    if (width == 0 && s == "0") s.clear();  // no leading zero block for an empty high part
    if (width > s.size()) job_.out.append(width - s.size(), '0');
    job_.out += s;
  }

  DigitsJob &job_;
  std::vector<std::unique_ptr<Mpz>> powers_;
  std::vector<size_t> digits_;
};

void digits_worker(std::shared_ptr<DigitsJob> job) {
  try {
    DigitsWriter(*job).run();
  } catch (...) {  // std::bad_alloc from the string
    job->failed = true;
  }
  std::lock_guard<std::mutex> lock(job->m);
  job->done = true;
  job->cv.notify_one();
}

std::string finish_digits(DigitsJob &job, mpz_srcptr z, bool interruptible) {
  if (job.failed) {
    std::string what = fmt::format("out of memory: cannot write an integer of {} bits", mpz_sizeinbase(z, 2));
    if (!interruptible) return "#<" + what + ">";  // inside an error report: no error here
    throw_error(what);
  }
  std::string r = std::move(job.out);  // z has over 2^20 bits: never 0
  return r;
}

std::string big_integer_digits(mpz_srcptr z, int radix, bool interruptible) {
  auto job = std::make_shared<DigitsJob>();
  // |z|, copied in polled chunks: hundreds of megabytes take seconds to fault in.
  size_t n = mpz_size(z);
  mp_limb_t *limbs = mpz_limbs_write(job->z, mp_size_t(n));
  const mp_limb_t *src = mpz_limbs_read(z);
  fill_in_polled_chunks(int64_t(n), int64_t(1) << 20, [&](int64_t lo, int64_t hi) {
    std::memcpy(limbs + lo, src + lo, size_t(hi - lo) * sizeof(mp_limb_t));
  });
  mpz_limbs_finish(job->z, mp_size_t(n));
  job->negative = mpz_sgn(z) < 0;
  job->radix = radix;
  std::thread worker;
  try {
    worker = std::thread(digits_worker, job);
  } catch (const std::exception &) {  // no thread to be had (system_error, bad_alloc): convert here
    DigitsWriter(*job).run();
    worker = std::thread();
    job->done = true;
  }
  if (!worker.joinable()) return finish_digits(*job, z, interruptible);
  try {
    std::unique_lock<std::mutex> lock(job->m);
    while (!job->done) {
      job->cv.wait_for(lock, std::chrono::milliseconds(20));
      if (!interruptible) continue;
      lock.unlock();
      check_interrupt();
      lock.lock();
    }
  } catch (...) {
    job->cancel = true;
    worker.detach();  // it stops after its current GMP step and frees the job
    throw;
  }
  worker.join();
  return finish_digits(*job, z, interruptible);
}

}  // namespace

static std::string integer_to_string(Value v, int radix, bool interruptible) {
  if (is_fixnum(v)) return int_to_string(fixnum_of(v), radix);
  IntView z(v);
  bool power_of_two = (radix & (radix - 1)) == 0;  // linear in GMP
  if (!power_of_two && mpz_sizeinbase(z, 2) > kThreadedDigitsBits)
    return big_integer_digits(z, radix, interruptible);
  std::string s(mpz_sizeinbase(z, radix) + 2, '\0');
  mpz_get_str(s.data(), radix, z);
  s.resize(std::strlen(s.c_str()));
  return s;
}

bool exact_digits_exceed(Value v, size_t chars) {
  if (is_fixnum(v)) return false;
  // A b-bit integer has at least floor((b - 1) * log10 2) + 1 digits.
  double digits = double(exact_bits(v)) * 0.30102999566398119 - 2.0;
  return digits > double(chars);
}

std::string exact_size_text(Value v) {
  if (is_ratnum(v))
    return fmt::format("#<a rational of {}/{} bits>", exact_integer_bits(ratnum_num(v)),
                       exact_integer_bits(ratnum_den(v)));
  return fmt::format("#<an integer of {} bits>", exact_integer_bits(v));
}

std::string exact_to_string(Value v, int radix, bool interruptible) {
  if (is_ratnum(v))
    return integer_to_string(ratnum_num(v), radix, interruptible) + "/" +
           integer_to_string(ratnum_den(v), radix, interruptible);
  return integer_to_string(v, radix, interruptible);
}

Value exact_integer_from_digits(std::string_view digits, int radix, bool negative) {
  if (digits.size() <= 12) {  // 36^12 < 2^63
    int64_t n = 0;
    for (char c : digits) {
      int d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
      n = n * radix + d;
    }
    return make_int(negative ? -n : n);
  }
  check_exact_bits(uint64_t(double(digits.size()) * std::log2(double(radix))));
  std::string text(digits);
  Mpz z;
  mpz_set_str(z, text.c_str(), radix);
  if (negative) mpz_neg(z, z);
  return value_of_mpz(z);
}

}  // namespace kiln

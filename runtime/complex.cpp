// complex.cpp — construction, arithmetic and text of complex numbers (complex.h).
#include "runtime/complex.h"

#include <cmath>

#include "runtime/error.h"
#include "runtime/exact.h"
#include "runtime/number.h"
#include "runtime/printer.h"

namespace kiln {

static Value as_float(Value v) { return is_double(v) ? v : make_double(number_as_double(v)); }

Value make_rectangular(Value re, Value im) {
  if (is_exact(im) && exact_sign(im) == 0) return re;
  if (is_double(re) || is_double(im)) {
    re = as_float(re);
    im = as_float(im);
  }
  Compnum *c = alloc_obj<Compnum>(T_COMPNUM);
  c->re = re;
  c->im = im;
  return from_ptr(c);
}

Value make_polar(Value mag, Value ang) {
  if (is_exact(ang) && exact_sign(ang) == 0) return mag;
  double m = number_as_double(mag), a = number_as_double(ang);
  return make_rectangular(make_double(m * std::cos(a)), make_double(m * std::sin(a)));
}

std::complex<double> as_complex_double(Value v) {
  if (is_compnum(v)) return {number_as_double(as<Compnum>(v)->re), number_as_double(as<Compnum>(v)->im)};
  return {number_as_double(v), 0.0};
}

Value make_complex_double(std::complex<double> z) {
  Compnum *c = alloc_obj<Compnum>(T_COMPNUM);
  c->re = make_double(z.real());
  c->im = make_double(z.imag());
  return from_ptr(c);
}

// A real operand adds nothing to the other's imaginary part (so -0.0 and
// infinities there survive), and scales both parts alike.
Value complex_add(Value a, Value b) {
  if (!is_compnum(a)) return make_rectangular(num_add(a, real_part(b)), imag_part(b));
  if (!is_compnum(b)) return make_rectangular(num_add(real_part(a), b), imag_part(a));
  return make_rectangular(num_add(real_part(a), real_part(b)), num_add(imag_part(a), imag_part(b)));
}

Value complex_negate(Value a) { return make_rectangular(num_negate(real_part(a)), num_negate(imag_part(a))); }

Value complex_sub(Value a, Value b) {
  if (!is_compnum(a)) return make_rectangular(num_sub(a, real_part(b)), num_negate(imag_part(b)));
  if (!is_compnum(b)) return make_rectangular(num_sub(real_part(a), b), imag_part(a));
  return make_rectangular(num_sub(real_part(a), real_part(b)), num_sub(imag_part(a), imag_part(b)));
}

Value complex_mul(Value a, Value b) {
  if (!is_compnum(a)) return make_rectangular(num_mul(a, real_part(b)), num_mul(a, imag_part(b)));
  if (!is_compnum(b)) return make_rectangular(num_mul(real_part(a), b), num_mul(imag_part(a), b));
  Value p = real_part(a), q = imag_part(a), r = real_part(b), s = imag_part(b);
  return make_rectangular(num_sub(num_mul(p, r), num_mul(q, s)), num_add(num_mul(p, s), num_mul(q, r)));
}

Value complex_div(Value a, Value b) {
  if (!is_compnum(b)) return make_rectangular(num_div(real_part(a), b), num_div(imag_part(a), b));
  Value p = real_part(a), q = imag_part(a), r = real_part(b), s = imag_part(b);
  if (is_exact(p) && is_exact(q) && is_exact(r)) {
    // (p + qi) / (r + si) = ((pr + qs) + (qr - ps) i) / (r^2 + s^2), exactly; s != 0.
    Value den = exact_add(exact_mul(r, r), exact_mul(s, s));
    return make_rectangular(exact_div(exact_add(exact_mul(p, r), exact_mul(q, s)), den),
                            exact_div(exact_sub(exact_mul(q, r), exact_mul(p, s)), den));
  }
  // Smith's algorithm: dividing by the larger of |r| and |s| first keeps the
  // intermediate products from overflowing where the quotient does not.
  double x = number_as_double(p), y = number_as_double(q), c = number_as_double(r), d = number_as_double(s);
  double re, im;
  if (std::fabs(c) >= std::fabs(d)) {
    double t = d / c, den = c + d * t;
    re = (x + y * t) / den;
    im = (y - x * t) / den;
  } else {
    double t = c / d, den = c * t + d;
    re = (x * t + y) / den;
    im = (y * t - x) / den;
  }
  return make_rectangular(make_double(re), make_double(im));
}

bool complex_equal(Value a, Value b) {
  return num_compare_slow(Cmp::EQ, "=", real_part(a), real_part(b)) &&
         num_compare_slow(Cmp::EQ, "=", imag_part(a), imag_part(b));
}

std::string complex_to_string(Value v, int radix, bool interruptible) {
  Value re = real_part(v), im = imag_part(v);
  std::string out;
  if (is_double(re)) {
    format_double(out, double_of(re));
    std::string imag = format_double(double_of(im));
    if (imag[0] != '+' && imag[0] != '-') out += '+';
    out += imag;
  } else {
    if (exact_sign(re) != 0) out += exact_to_string(re, radix, interruptible);
    if (exact_sign(im) > 0) out += '+';
    if (im == make_fixnum(-1)) out += '-';
    else if (im != make_fixnum(1)) out += exact_to_string(im, radix, interruptible);
  }
  out += 'i';
  return out;
}

}  // namespace kiln

// complex.h — complex numbers with a non-zero imaginary part (object.h's Compnum).
//
// Invariant: every Compnum is made by make_rectangular, which normalises: parts
// of mixed exactness become floats (SPEC §4: both exact or both floats), and an
// exact zero imaginary part gives the real part itself. The functions here take
// any numbers (real or complex; at least one complex where the name says so),
// treat a real x as x + 0i with an exact zero that never turns a float part
// into NaN or loses its sign, and are only reached from number.h's slow paths
// and the numeric builtins, so real arithmetic never pays for them.
#pragma once
#include <complex>
#include <string>

#include "runtime/object.h"

namespace kiln {

// re + im i for real re and im, normalised as above.
Value make_rectangular(Value re, Value im);
// mag * e^(i ang) for real mag and ang: mag itself when ang is an exact zero,
// otherwise a float complex (as Guile: (make-polar 1 0.0) is 1.0+0.0i).
Value make_polar(Value mag, Value ang);
inline Value real_part(Value v) { return is_compnum(v) ? as<Compnum>(v)->re : v; }
// The imaginary part; an exact 0 for a real number.
inline Value imag_part(Value v) { return is_compnum(v) ? as<Compnum>(v)->im : make_fixnum(0); }
inline bool compnum_is_exact(Value v) { return is_exact(as<Compnum>(v)->re); }

// Arithmetic on two numbers of which at least one is a Compnum.
Value complex_add(Value a, Value b);
Value complex_sub(Value a, Value b);
Value complex_mul(Value a, Value b);
Value complex_div(Value a, Value b);  // exact division by an exact 0: "division by zero"
Value complex_negate(Value a);
bool complex_equal(Value a, Value b);  // numeric =

// Conversions between Kiln numbers and std::complex<double>.
std::complex<double> as_complex_double(Value v);
// Always a Compnum (a float complex result stays complex, 0.0 imaginary part or not).
Value make_complex_double(std::complex<double> z);

// The text Guile prints: 3+4i, 1/2-3/4i, +i, -2i (an exact zero real part is
// left out, an imaginary part of 1 is written as its sign alone), and 1.5-2.0i,
// 0.0+1.0i, +inf.0+nan.0i for float parts (both parts always written).
std::string complex_to_string(Value v, int radix, bool interruptible = true);

}  // namespace kiln

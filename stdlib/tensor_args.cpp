// tensor_args.cpp — argument checkers of the tensor builtins (tensor_args.h).
#include "stdlib/tensor_args.h"

#include "runtime/args.h"
#include "runtime/number.h"

namespace kiln {

Tensor *arg_tensor(const char *who, int pos, Value v) {
  if (is_tensor(v)) return tensor_of(v);
  type_error(who, pos, "a tensor", v);
}

void operand(const char *who, int pos, Value v, Operand &o) {
  if (is_tensor(v)) {
    o.shape = tensor_of(v)->shape;
    o.data = tensor_of(v)->data;
  } else if (is_number(v)) {
    o.shape = Shape{};
    o.scalar = number_as_double(v);
    o.data = &o.scalar;
  } else {
    type_error(who, pos, "a number or a tensor", v);
  }
}

}  // namespace kiln

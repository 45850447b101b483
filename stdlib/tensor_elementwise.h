// tensor_elementwise.h — the element-wise tensor builtins and generic arithmetic
// on tensors ((+ t 1), (sqrt t), ...), both generated from runtime/op_table.h.
//
// Invariant: one op-table row is one builtin (when it names one), one fusable
// registration (when it is fusable) and one generic-arithmetic meaning (when it
// names a generic procedure); nothing here lists ops by hand.
#pragma once

namespace kiln {

// Defines the element-wise builtins, registers the fusable ones and makes
// tensors answer the generic numeric procedures (g_type_hooks[T_TENSOR].arith).
void register_elementwise_builtins();

}  // namespace kiln

// npy_array.h — a whole .npy file held in memory, as a member of an .npz
// archive is (load-npz, docs/data-files.md).
//
// Invariant: the same checks as load-npy's (npy.cpp): the header length, the
// header, and the shape times the item size against the bytes there are,
// exactly, before the tensor is allocated; every error is "WHO: WHERE: what".
#pragma once
#include <cstdint>
#include <string>

#include "runtime/value.h"

namespace kiln {

Value npy_tensor_from_bytes(const char *who, const std::string &where, const unsigned char *p, uint64_t n);

}  // namespace kiln

// Declarations of every op's definition (kGeluOp, …), generated from op_list.hpp; each is
// defined in its own file of this folder.
#pragma once

#include "core/ops/op.hpp"

namespace iputrain::ir {

#define IPUTRAIN_OP(kind, surface, flags) extern const OpDef k##kind##Op;
#include "core/ops/op_list.hpp"
#undef IPUTRAIN_OP

}  // namespace iputrain::ir

// equal: a == b with NumPy broadcasting; operands share a dtype; the result is bool (one byte, 0/1).
#include "core/ops/compare_util.hpp"

namespace iputrain::ir {

const OpDef kEqualOp{
    .kind = OpKind::Equal,
    .name = "equal",
    .arity = 2,
    .infer = infer_compare<true>,
    .forward = compare_forward<std::equal_to<>>,
    .backward = nullptr,
    .cost = elementwise_cost_of<>,
    .doc = "a == b -> bool, NumPy broadcasting (f32, i32, bool).",
    .edges = "IEEE 754: nan equals nothing, itself included; -0 == 0.",
};

}  // namespace iputrain::ir

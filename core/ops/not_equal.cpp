// not_equal: a != b -> bool with NumPy broadcasting (f32, i32, bool); no gradient. nan compares unequal to
// everything.
#include "core/ops/compare_util.hpp"

namespace iputrain::ir {

const OpDef kNotEqualOp{
    .kind = OpKind::NotEqual,
    .name = "not_equal",
    .arity = 2,
    .infer = infer_compare<true>,
    .forward = compare_forward<std::not_equal_to<>>,
    .backward = nullptr,
    .cost = elementwise_cost_of<>,
    .doc = "a != b -> bool, NumPy broadcasting (f32, i32, bool).",
    .edges = "IEEE 754: nan differs from everything, itself included; -0 == 0.",
};

}  // namespace iputrain::ir

// less_equal: a <= b -> bool with NumPy broadcasting (f32, i32); no gradient. Any comparison with nan is
// false.
#include "core/ops/compare_util.hpp"

namespace iputrain::ir {

const OpDef kLessEqualOp{
    .kind = OpKind::LessEqual,
    .name = "less_equal",
    .arity = 2,
    .infer = infer_compare<false>,
    .forward = compare_forward<std::less_equal<>>,
    .backward = nullptr,
    .cost = elementwise_cost_of<>,
    .doc = "a <= b -> bool, NumPy broadcasting (f32, i32).",
    .edges = "IEEE 754: false whenever a side is nan.",
};

}  // namespace iputrain::ir

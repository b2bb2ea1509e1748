// not_equal: a != b -> bool with NumPy broadcasting (f32, i32, bool); no gradient. nan compares unequal to
// everything.
#include "core/ops/compare_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_not_equal {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  return infer_compare(in, true);
}

void forward(const KernelArgs& args) {
  compare_forward(args, [](auto x, auto y) { return x != y; });
}

}  // namespace impl_not_equal
}  // namespace

const OpDef kNotEqualOp{
    .kind = OpKind::NotEqual,
    .name = "not_equal",
    .arity = 2,
    .infer = impl_not_equal::infer,
    .forward = impl_not_equal::forward,
    .backward = nullptr,
    .cost = compare_cost,
    .doc = "a != b -> bool, NumPy broadcasting (f32, i32, bool).",
    .edges = "IEEE 754: nan differs from everything, itself included; -0 == 0.",
};

}  // namespace iputrain::ir

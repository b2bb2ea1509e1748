// less: a < b -> bool with NumPy broadcasting (f32, i32); no gradient. Any comparison with nan is false.
#include "core/ops/compare_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_less {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  return infer_compare(in, false);
}

void forward(const KernelArgs& args) {
  compare_forward(args, [](auto x, auto y) { return x < y; });
}

}  // namespace impl_less
}  // namespace

const OpDef kLessOp{
    .kind = OpKind::Less,
    .name = "less",
    .arity = 2,
    .infer = impl_less::infer,
    .forward = impl_less::forward,
    .backward = nullptr,
    .cost = compare_cost,
    .doc = "a < b -> bool, NumPy broadcasting (f32, i32).",
    .edges = "IEEE 754: false whenever a side is nan.",
};

}  // namespace iputrain::ir

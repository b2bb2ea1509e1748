// constant: a leaf — a tensor filled with its `value` attribute (by the engine).
#include "core/ops/op_util.hpp"

namespace iputrain::ir {

const OpDef kConstantOp{
    .kind = OpKind::Constant,
    .name = "constant",
    .arity = 0,
    .infer = infer_leaf<OpKind::Constant>,
    .forward = nullptr,
    .backward = nullptr,
    .cost = nullptr,
    .doc = "A tensor filled with attribute value (a leaf).",
};

}  // namespace iputrain::ir

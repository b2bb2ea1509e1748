// input: a leaf — an infeed input (fed by name from the dataset).
#include "core/ops/op_util.hpp"

namespace iputrain::ir {

const OpDef kInputOp{
    .kind = OpKind::Input,
    .name = "input",
    .arity = 0,
    .infer = infer_leaf<OpKind::Input>,
    .forward = nullptr,
    .backward = nullptr,
    .cost = nullptr,
    .doc = "A value fed by the infeed each step (a leaf; name = the dataset field).",
};

}  // namespace iputrain::ir

// param: a leaf — a trainable parameter (filled by its initializer, see core/init.hpp).
#include "core/ops/op_util.hpp"

namespace iputrain::ir {

const OpDef kParamOp{
    .kind = OpKind::Param,
    .name = "param",
    .arity = 0,
    .infer = infer_leaf<OpKind::Param>,
    .forward = nullptr,
    .backward = nullptr,
    .cost = nullptr,
    .doc = "A trainable weight (a leaf); attrs: init and its arguments.",
};

}  // namespace iputrain::ir

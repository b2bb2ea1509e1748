// Declarations of every op's definition; each is defined in its own file of this folder.
#pragma once

#include "core/ops/op.hpp"

namespace iputrain::ir {

extern const OpDef kInputOp;
extern const OpDef kParamOp;
extern const OpDef kConstantOp;
extern const OpDef kAddOp;
extern const OpDef kSubOp;
extern const OpDef kMulOp;
extern const OpDef kDivOp;
extern const OpDef kPowOp;
extern const OpDef kNegOp;
extern const OpDef kReluOp;
extern const OpDef kReluGradOp;
extern const OpDef kEqualOp;
extern const OpDef kCastOp;
extern const OpDef kReshapeOp;
extern const OpDef kBroadcastToOp;
extern const OpDef kSumOp;
extern const OpDef kMeanOp;
extern const OpDef kArgmaxOp;
extern const OpDef kMatMulOp;
extern const OpDef kSoftmaxCrossEntropyOp;
extern const OpDef kSoftmaxCrossEntropyGradOp;

}  // namespace iputrain::ir

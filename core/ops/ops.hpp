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
extern const OpDef kMaximumOp;
extern const OpDef kMinimumOp;
extern const OpDef kMinMaxGradOp;
extern const OpDef kWhereOp;
extern const OpDef kNegOp;
extern const OpDef kReluOp;
extern const OpDef kReluGradOp;
extern const OpDef kExpOp;
extern const OpDef kLogOp;
extern const OpDef kSqrtOp;
extern const OpDef kRsqrtOp;
extern const OpDef kAbsOp;
extern const OpDef kSquareOp;
extern const OpDef kTanhOp;
extern const OpDef kSigmoidOp;
extern const OpDef kGeluOp;
extern const OpDef kSwishOp;
extern const OpDef kHardSigmoidOp;
extern const OpDef kUnaryGradOp;
extern const OpDef kEqualOp;
extern const OpDef kNotEqualOp;
extern const OpDef kLessOp;
extern const OpDef kLessEqualOp;
extern const OpDef kGreaterOp;
extern const OpDef kGreaterEqualOp;
extern const OpDef kCastOp;
extern const OpDef kReshapeOp;
extern const OpDef kBroadcastToOp;
extern const OpDef kTransposeOp;
extern const OpDef kConcatOp;
extern const OpDef kSliceOp;
extern const OpDef kSliceGradOp;
extern const OpDef kGatherOp;
extern const OpDef kGatherGradOp;
extern const OpDef kOneHotOp;
extern const OpDef kSumOp;
extern const OpDef kMeanOp;
extern const OpDef kMaxOp;
extern const OpDef kArgmaxOp;
extern const OpDef kMatMulOp;
extern const OpDef kConv2DOp;
extern const OpDef kConv2DBackpropInputOp;
extern const OpDef kConv2DBackpropFilterOp;
extern const OpDef kMaxPoolOp;
extern const OpDef kMaxPoolGradOp;
extern const OpDef kAvgPoolOp;
extern const OpDef kAvgPoolGradOp;
extern const OpDef kSoftmaxOp;
extern const OpDef kSoftmaxGradOp;
extern const OpDef kLogSoftmaxOp;
extern const OpDef kLogSoftmaxGradOp;
extern const OpDef kDropoutMaskOp;
extern const OpDef kMovingAverageOp;
extern const OpDef kSoftmaxCrossEntropyOp;
extern const OpDef kSoftmaxCrossEntropyGradOp;
extern const OpDef kSigmoidCrossEntropyWithLogitsOp;
extern const OpDef kRecomputationCheckpointOp;

}  // namespace iputrain::ir

// The op table: one line per primitive, in OpKind order.
#include <iterator>

#include "core/ops/ops.hpp"

namespace iputrain::ir {

namespace {
const OpDef* const kTable[] = {
    &kInputOp,
    &kParamOp,
    &kConstantOp,
    &kAddOp,
    &kSubOp,
    &kMulOp,
    &kDivOp,
    &kPowOp,
    &kMaximumOp,
    &kMinimumOp,
    &kMinMaxGradOp,
    &kWhereOp,
    &kNegOp,
    &kReluOp,
    &kReluGradOp,
    &kExpOp,
    &kLogOp,
    &kSqrtOp,
    &kRsqrtOp,
    &kAbsOp,
    &kSquareOp,
    &kTanhOp,
    &kSigmoidOp,
    &kGeluOp,
    &kSwishOp,
    &kHardSigmoidOp,
    &kUnaryGradOp,
    &kEqualOp,
    &kNotEqualOp,
    &kLessOp,
    &kLessEqualOp,
    &kGreaterOp,
    &kGreaterEqualOp,
    &kCastOp,
    &kReshapeOp,
    &kBroadcastToOp,
    &kTransposeOp,
    &kConcatOp,
    &kSliceOp,
    &kSliceGradOp,
    &kGatherOp,
    &kGatherGradOp,
    &kOneHotOp,
    &kSumOp,
    &kMeanOp,
    &kMaxOp,
    &kArgmaxOp,
    &kMatMulOp,
    &kConv2DOp,
    &kConv2DBackpropInputOp,
    &kConv2DBackpropFilterOp,
    &kMaxPoolOp,
    &kMaxPoolGradOp,
    &kAvgPoolOp,
    &kAvgPoolGradOp,
    &kSoftmaxOp,
    &kSoftmaxGradOp,
    &kLogSoftmaxOp,
    &kLogSoftmaxGradOp,
    &kDropoutMaskOp,
    &kMovingAverageOp,
    &kSoftmaxCrossEntropyOp,
    &kSoftmaxCrossEntropyGradOp,
    &kSigmoidCrossEntropyWithLogitsOp,
    &kRecomputationCheckpointOp,
};
// The length is deduced from the list, so a missing or extra op fails to compile; the order is
// checked by tests/core/op_table_test.cpp (each entry's kind equals its position).
static_assert(std::size(kTable) == static_cast<size_t>(OpKind::Count), "op_table.cpp must list every OpKind");
}  // namespace

const OpDef& op_def(OpKind kind) {
  return *kTable[static_cast<size_t>(kind)];
}

std::string_view op_name(OpKind kind) {
  return kind < OpKind::Count ? op_def(kind).name : std::string_view("?");
}

OpKind op_by_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kTable); ++i) {
    if (kTable[i]->name == name) {
      return static_cast<OpKind>(i);
    }
  }
  return OpKind::Count;
}

}  // namespace iputrain::ir

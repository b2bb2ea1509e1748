// The op table: one line per primitive, in OpKind order.
#include <array>

#include "core/ops/ops.hpp"

namespace iputrain::ir {

namespace {
constexpr std::array<const OpDef*, static_cast<size_t>(OpKind::Count)> kTable = {
    &kInputOp,
    &kParamOp,
    &kConstantOp,
    &kAddOp,
    &kSubOp,
    &kMulOp,
    &kDivOp,
    &kPowOp,
    &kNegOp,
    &kReluOp,
    &kReluGradOp,
    &kEqualOp,
    &kCastOp,
    &kReshapeOp,
    &kBroadcastToOp,
    &kSumOp,
    &kMeanOp,
    &kArgmaxOp,
    &kMatMulOp,
    &kSoftmaxCrossEntropyOp,
    &kSoftmaxCrossEntropyGradOp,
};
// A list shorter than OpKind leaves null entries, which this rejects at compile time.
constexpr bool covers_every_op() {
  for (const OpDef* d : kTable) {
    if (d == nullptr) {
      return false;
    }
  }
  return true;
}
static_assert(covers_every_op(), "op_table.cpp must list every OpKind, in order");
}  // namespace

const OpDef& op_def(OpKind kind) { return *kTable.at(static_cast<size_t>(kind)); }

std::string_view op_name(OpKind kind) {
  return kind < OpKind::Count ? op_def(kind).name : std::string_view("?");
}

OpKind op_by_name(std::string_view name) {
  for (size_t i = 0; i < kTable.size(); ++i) {
    if (kTable[i]->name == name) {
      return static_cast<OpKind>(i);
    }
  }
  return OpKind::Count;
}

}  // namespace iputrain::ir

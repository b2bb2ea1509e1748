// moving_average: a statistic and the moving average that follows it. While training the output
// is x, the statistic of the current micro-batch, and the gradient flows into x as through an
// identity; in evaluation and prediction (ExecContext::training false) it is `state`, a
// non-trainable parameter. The op itself never writes the state: the engine updates it once per
// weight update from the x of every micro-batch of the update,
//   state = state * momentum + mean(x) * (1 - momentum)
// (planner/moving_statistics.hpp has the rule and the order of the sum).
#include <fmt/format.h>

#include <cstring>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_moving_average {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  if (!is_float(in[0]->dtype)) {
    throw OpError{fmt::format("takes a float statistic, got {}", in[0]->str()), ""};
  }
  if (*in[0] != *in[1]) {
    throw OpError{fmt::format("the statistic is {} but the state is {}", in[0]->str(), in[1]->str()),
                  "the state holds the moving average of the statistic, so both have one type"};
  }
  if (!attrs.has("momentum")) {
    throw OpError{"the attribute momentum is required", "e.g. momentum = 0.99 (Keras' default)"};
  }
  const double momentum = float_attr(attrs, "momentum", 0.0);
  if (!(momentum >= 0.0 && momentum <= 1.0)) {
    throw OpError{fmt::format("momentum must lie in [0, 1], got {}", momentum),
                  "the state keeps this share of its value at every update"};
  }
  return *in[0];
}

void forward(const KernelArgs& args) {
  const bool training = args.ctx == nullptr || args.ctx->training;
  const Tensor& from = args.inputs[training ? 0 : 1];
  std::memcpy(args.output.data, from.data, from.type->bytes());
}

std::vector<ValueId> backward(Graph&, ValueId, ValueId dy) { return {dy, kNoValue}; }

// A copy of one of the inputs.
Cost cost(const Graph&, const Node& node) {
  const auto bytes = static_cast<double>(node.type.bytes());
  return Cost{0.0, bytes, bytes};
}

}  // namespace impl_moving_average
}  // namespace

const OpDef kMovingAverageOp{
    .kind = OpKind::MovingAverage,
    .name = "moving_average",
    .arity = 2,
    .infer = impl_moving_average::infer,
    .forward = impl_moving_average::forward,
    .backward = impl_moving_average::backward,
    .cost = impl_moving_average::cost,
    .doc =
        "moving_average(x, state; momentum) -> x while training (gradient into x), state when not; once per "
        "weight update the engine sets state = state * momentum + mean of the update's x * (1 - momentum).",
    .edges = "passes values unchanged.",
};

}  // namespace iputrain::ir

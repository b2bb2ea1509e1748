#include "core/ops/collective_util.hpp"

#include <fmt/format.h>

#include "iputrain/error.hpp"

namespace iputrain::ir {

int64_t group_size(int64_t group, int64_t replicas) {
  const int64_t g = group == 0 ? replicas : group;
  return g >= 1 && replicas % g == 0 ? g : 0;
}

GroupOperands::GroupOperands(const KernelArgs& args, const Tensor& x, int64_t group)
    : self_(static_cast<const std::byte*>(x.data)) {
  ReplicaLink* link = args.ctx != nullptr ? args.ctx->replicas : nullptr;
  const int32_t replicas = link != nullptr ? link->replicas() : 1;
  const int32_t replica = link != nullptr ? link->replica() : 0;
  const auto g = static_cast<int32_t>(group_size(group, replicas));
  if (g == 0) {
    throw Error(
        ErrorKind::Internal,
        fmt::format("{}: groups of {} replicas do not divide the run's {}", op_name(args.node.op), group, replicas),
        args.node.span, "the planner checks the groups; please report this plan");
  }
  size_ = g;
  first_ = replica / g * g;
  index_ = replica % g;
  if (link != nullptr && g > 1) {  // every replica of the run decides alike
    all_ = link->exchange(x.data, static_cast<size_t>(x.numel()) * dtype_size(x.type->dtype));
  }
}

}  // namespace iputrain::ir

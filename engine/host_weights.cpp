#include "engine/host_weights.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace {

// Where each parameter's buffer starts in the block, and the block's size.
size_t layout(const ir::Graph& graph, std::vector<int64_t>& offset) {
  size_t bytes = 0;
  for (ir::ValueId p : graph.params) {
    offset[static_cast<size_t>(p)] = static_cast<int64_t>(bytes);
    bytes += buffer_aligned(std::max<size_t>(1, graph.type(p).bytes()));
  }
  return bytes;
}

}  // namespace

HostWeights::HostWeights(const ir::Graph& graph)
    : graph_(graph), offset_(static_cast<size_t>(graph.size()), -1), memory_(layout(graph, offset_)) {}

bool HostWeights::has(ir::ValueId p) const {
  return p >= 0 && static_cast<size_t>(p) < offset_.size() && offset_[static_cast<size_t>(p)] >= 0;
}

ir::Tensor HostWeights::tensor(ir::ValueId p) const {
  if (!has(p)) {
    throw Error(ErrorKind::Internal, fmt::format("value %{} is not a parameter", p));
  }
  return {&graph_.node(p).type, memory_.data() + offset_[static_cast<size_t>(p)]};
}

}  // namespace iputrain::engine

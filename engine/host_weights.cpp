#include "engine/host_weights.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace {

constexpr size_t kAlign = 64;
size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

}  // namespace

void HostWeights::Free::operator()(std::byte* p) const { std::free(p); }

HostWeights::HostWeights(const ir::Graph& graph) : graph_(graph), offset_(static_cast<size_t>(graph.size()), -1) {
  size_t bytes = 0;
  for (ir::ValueId p : graph.params) {
    offset_[static_cast<size_t>(p)] = static_cast<int64_t>(bytes);
    bytes += align_up(std::max<size_t>(1, graph.type(p).bytes()));
  }
  memory_.reset(static_cast<std::byte*>(std::aligned_alloc(kAlign, std::max(bytes, kAlign))));
  if (!memory_) {
    throw Error(ErrorKind::Runtime, fmt::format("cannot allocate {} bytes for the model's weights", bytes));
  }
  std::memset(memory_.get(), 0, bytes);
}

bool HostWeights::has(ir::ValueId p) const {
  return p >= 0 && static_cast<size_t>(p) < offset_.size() && offset_[static_cast<size_t>(p)] >= 0;
}

ir::Tensor HostWeights::tensor(ir::ValueId p) const {
  if (!has(p)) {
    throw Error(ErrorKind::Internal, fmt::format("value %{} is not a parameter", p));
  }
  return {&graph_.node(p).type, memory_.get() + offset_[static_cast<size_t>(p)]};
}

}  // namespace iputrain::engine

#include "engine/cluster/device_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace {
constexpr size_t kAlign = 64;  // a cache line: aligned vector loads, no false sharing between buffers
size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

std::byte* allocate(size_t bytes, const char* what) {
  auto* p = static_cast<std::byte*>(std::aligned_alloc(kAlign, align_up(std::max<size_t>(bytes, 1))));
  if (p == nullptr) {
    throw Error(ErrorKind::Runtime, fmt::format("cannot allocate {} bytes of {}", bytes, what));
  }
  std::memset(p, 0, align_up(std::max<size_t>(bytes, 1)));
  return p;
}

void fill_constant(const ir::Node& n, ir::Tensor t) {
  const double value = n.attrs.get_float("value");
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (n.type.dtype) {
      case DType::I32: t.i32()[i] = static_cast<int32_t>(value); break;
      case DType::Bool: t.u8()[i] = value != 0 ? 1 : 0; break;
      default: t.f32()[i] = static_cast<float>(value); break;
    }
  }
}
}  // namespace

void DeviceMemory::Free::operator()(std::byte* p) const { std::free(p); }
void AlignedBlock::Free::operator()(std::byte* p) const { std::free(p); }

AlignedBlock::AlignedBlock(size_t bytes) : memory_(allocate(bytes, "device scratch")), bytes_(bytes) {}

DeviceMemory::DeviceMemory(int32_t id, const ir::Graph& graph, const std::vector<planner::Buffer>& buffers)
    : id_(id), graph_(graph), place_(static_cast<size_t>(graph.size())) {
  for (const planner::Buffer& b : buffers) {
    Place& p = place_.at(static_cast<size_t>(b.value));
    if (p.offset >= 0) {
      throw Error(ErrorKind::Internal, fmt::format("value %{} has two buffers on IPU {}", b.value, id));
    }
    p.offset = static_cast<int64_t>(bytes_);
    p.stride = static_cast<int64_t>(align_up(std::max<size_t>(1, graph.type(b.value).bytes())));
    p.slots = std::max(1, b.slots);
    bytes_ += static_cast<size_t>(p.stride * p.slots);
  }
  memory_.reset(allocate(bytes_, "device memory"));
  for (const planner::Buffer& b : buffers) {
    const ir::Node& n = graph.node(b.value);
    if (n.op == ir::OpKind::Constant) {
      for (int32_t s = 0; s < slots(b.value); ++s) {
        fill_constant(n, tensor(b.value, s));
      }
    }
  }
}

bool DeviceMemory::has(ir::ValueId v) const {
  return v >= 0 && v < graph_.size() && place_[static_cast<size_t>(v)].offset >= 0;
}

int32_t DeviceMemory::slots(ir::ValueId v) const { return has(v) ? place_[static_cast<size_t>(v)].slots : 0; }

ir::Tensor DeviceMemory::tensor(ir::ValueId v, int64_t micro_batch) const {
  if (!has(v)) {
    throw Error(ErrorKind::Internal, fmt::format("value %{} has no buffer on IPU {}", v, id_));
  }
  const Place& p = place_[static_cast<size_t>(v)];
  return ir::Tensor{&graph_.type(v), memory_.get() + p.offset + (micro_batch % p.slots) * p.stride};
}

}  // namespace iputrain::engine

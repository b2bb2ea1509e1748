#include "engine/cluster/device_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace {
std::byte* allocate(size_t bytes, const char* what) {
  auto* p = static_cast<std::byte*>(std::aligned_alloc(kBufferAlign, buffer_aligned(std::max<size_t>(bytes, 1))));
  if (p == nullptr) {
    throw Error(ErrorKind::Runtime, fmt::format("cannot allocate {} bytes of {}", bytes, what));
  }
  std::memset(p, 0, buffer_aligned(std::max<size_t>(bytes, 1)));
  return p;
}

void fill_constant(const ir::Node& n, ir::Tensor t) {
  const double value = n.attrs.get_float("value");
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (n.type.dtype) {
      case DType::I32: t.i32()[i] = static_cast<int32_t>(value); break;
      case DType::Bool: t.u8()[i] = value != 0 ? 1 : 0; break;
      case DType::U8:
        t.u8()[i] = static_cast<uint8_t>(value);
        break;
      default: t.f32()[i] = static_cast<float>(value); break;
    }
  }
}
}  // namespace

void DeviceMemory::Free::operator()(std::byte* p) const { std::free(p); }
void AlignedBlock::Free::operator()(std::byte* p) const { std::free(p); }

AlignedBlock::AlignedBlock(size_t bytes) : memory_(allocate(bytes, "device scratch")), bytes_(bytes) {}

DeviceMemory::DeviceMemory(int32_t id, const ir::Graph& graph, const std::vector<planner::Buffer>& buffers,
                           const planner::Arena& arena, int64_t host_scale)
    : id_(id), graph_(graph), arena_(arena), scale_(host_scale), param_offset_(static_cast<size_t>(graph.size()), -1) {
  size_t host_bytes = 0;
  for (const planner::Buffer& b : buffers) {
    int64_t& offset = param_offset_.at(static_cast<size_t>(b.value));
    if (offset >= 0) {
      throw Error(ErrorKind::Internal, fmt::format("parameter %{} has two buffers on IPU {}", b.value, id));
    }
    // A host table and its gradient: in the host's block, flagged by a negative offset - 2.
    size_t& next = b.cls == planner::BufferClass::Param ? param_bytes_ : host_bytes;
    offset = b.cls == planner::BufferClass::Param ? static_cast<int64_t>(next) : -2 - static_cast<int64_t>(next);
    next += buffer_aligned(std::max<size_t>(1, graph.type(b.value).bytes()));
  }
  params_.reset(allocate(param_bytes_, "device parameters"));
  if (host_bytes > 0) {
    host_ = AlignedBlock(host_bytes);
  }
  arena_bytes_ = static_cast<size_t>(arena.bytes * scale_);
  arena_memory_.reset(allocate(arena_bytes_, "device arena"));
  for (size_t i = 0; i < arena.lives.size(); ++i) {
    const planner::Life& life = arena.lives[i];
    if (life.temporary || life.view_of >= 0) {
      continue;  // a matmul's or convolution's working memory (counted, not used by the host
                 // kernels), or a reshape's view of its input's bytes
    }
    if (graph.type(life.value).bytes() > static_cast<size_t>(life.size * scale_)) {
      throw Error(ErrorKind::Internal, fmt::format("value %{} does not fit its arena slot on IPU {}", life.value, id));
    }
    const ir::Node& n = graph.node(life.value);
    if (op_has(n.op, ir::op_flags::constant)) {
      fill_constant(n, life_tensor(static_cast<int32_t>(i)));
    }
  }
}

bool DeviceMemory::has(ir::ValueId v) const {
  return v >= 0 && v < graph_.size() && (param_offset_[static_cast<size_t>(v)] != -1 || arena_.holds(v));
}

ir::Tensor DeviceMemory::life_tensor(int32_t life) const {
  const planner::Life& l = arena_.lives[static_cast<size_t>(life)];
  return ir::Tensor{&graph_.type(l.value), arena_memory_.get() + l.offset * scale_};
}

ir::Tensor DeviceMemory::tensor(ir::ValueId v) const {
  if (v >= 0 && v < graph_.size() && param_offset_[static_cast<size_t>(v)] >= 0) {
    return ir::Tensor{&graph_.type(v), params_.get() + param_offset_[static_cast<size_t>(v)]};
  }
  if (v >= 0 && v < graph_.size() && param_offset_[static_cast<size_t>(v)] < -1) {
    return ir::Tensor{&graph_.type(v), host_.data() + (-2 - param_offset_[static_cast<size_t>(v)])};
  }
  const int32_t life = arena_.find(v, -1, 0);
  if (life < 0 || arena_.lives[static_cast<size_t>(life)].micro_batch >= 0) {
    throw Error(ErrorKind::Internal, fmt::format("value %{} has no whole-cycle buffer on IPU {}", v, id_));
  }
  return life_tensor(life);
}

ir::Tensor DeviceMemory::tensor(ir::ValueId v, int64_t micro_batch, int32_t instr) const {
  if (v >= 0 && v < graph_.size() && param_offset_[static_cast<size_t>(v)] != -1) {
    return tensor(v);
  }
  const int32_t life = arena_.find(v, micro_batch, instr);
  if (life < 0) {
    throw Error(ErrorKind::Internal, fmt::format("value %{} of micro-batch {} has no buffer at instruction {} on IPU {}",
                                                 v, micro_batch, instr, id_));
  }
  return life_tensor(life);
}

}  // namespace iputrain::engine

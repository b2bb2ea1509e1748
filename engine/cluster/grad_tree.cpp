#include "engine/cluster/grad_tree.hpp"

#include <Eigen/Core>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace {

// Elements reduced at a time across replicas: a stack of this many floats per block stays in L1.
constexpr int64_t kChunk = 256;

using Half = Eigen::half;

// Rounds a partial sum to what the accumulator stores.
inline float stored(float x, bool half) { return half ? static_cast<float>(Half(x)) : x; }

inline float load(const void* p, DType dtype, int64_t i) {
  return dtype == DType::F16 ? static_cast<float>(static_cast<const Half*>(p)[i]) : static_cast<const float*>(p)[i];
}

// dst += src over n elements of `dtype`, with src of `src_dtype`, rounding each sum as stored.
void add_into(void* dst, DType dtype, const void* src, DType src_dtype, int64_t n) {
  if (dtype == DType::F32 && src_dtype == DType::F32) {
    float* d = static_cast<float*>(dst);
    const float* s = static_cast<const float*>(src);
    for (int64_t i = 0; i < n; ++i) {
      d[i] += s[i];
    }
    return;
  }
  // A leaf (f32) is rounded to half as if stored first: every plan rounds at the same places.
  Half* d = static_cast<Half*>(dst);
  for (int64_t i = 0; i < n; ++i) {
    const float x = src_dtype == DType::F32 ? static_cast<float>(Half(load(src, src_dtype, i))) : load(src, src_dtype, i);
    d[i] = Half(static_cast<float>(d[i]) + x);
  }
}

void copy_into(void* dst, DType dtype, const float* src, int64_t n) {
  if (dtype == DType::F32) {
    if (dst != src) {
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
    }
    return;
  }
  Half* d = static_cast<Half*>(dst);
  for (int64_t i = 0; i < n; ++i) {
    d[i] = Half(src[i]);
  }
}

template <typename OnMerge>
void push_block(GradientAccumulationOrder order, std::vector<TreeBlock>& stack, TreeBlock b, OnMerge&& on_merge) {
  while (!stack.empty() && merges(order, stack.back(), b)) {
    b = TreeBlock{stack.back().first, stack.back().size + b.size};
    stack.pop_back();
    on_merge(stack.size());  // the merged node lands in the left block's place
  }
  stack.push_back(b);
}

}  // namespace

GradTree::GradTree(DType dtype, int64_t size, std::vector<void*> slots, GradientAccumulationOrder order)
    : dtype_(dtype), order_(order), size_(size), slots_(std::move(slots)) {
  if (dtype != DType::F32 && dtype != DType::F16) {
    throw Error(ErrorKind::Internal, fmt::format("gradients accumulate in f32 or f16, not {}", dtype_name(dtype)));
  }
  stack_.reserve(slots_.size() + 1);
}

void GradTree::push(int64_t leaf, const float* grad) {
  TreeBlock b{leaf, 1};
  if (!stack_.empty() && merges(order_, stack_.back(), b)) {
    // The leaf merges at once: add it into its left neighbour, then merge upwards in place.
    add_into(slots_[stack_.size() - 1], dtype_, grad, DType::F32, size_);
    b = TreeBlock{stack_.back().first, stack_.back().size + 1};
    stack_.pop_back();
    while (!stack_.empty() && merges(order_, stack_.back(), b)) {
      add_into(slots_[stack_.size() - 1], dtype_, slots_[stack_.size()], dtype_, size_);
      b = TreeBlock{stack_.back().first, stack_.back().size + b.size};
      stack_.pop_back();
    }
    stack_.push_back(b);
    return;
  }
  if (stack_.size() >= slots_.size()) {
    throw Error(ErrorKind::Internal,
                fmt::format("gradient tree needs more than {} accumulators at leaf {}", slots_.size(), leaf));
  }
  copy_into(slots_[stack_.size()], dtype_, grad, size_);
  stack_.push_back(b);
}

void GradTree::fold() {
  for (size_t j = stack_.size(); j-- > 1;) {
    add_into(slots_[j - 1], dtype_, slots_[j], dtype_, size_);
  }
  if (stack_.size() > 1) {
    const TreeBlock& last = stack_.back();
    stack_.assign(1, TreeBlock{stack_.front().first, last.first + last.size - stack_.front().first});
  }
}

void GradTree::root_f32(float* out, int64_t lo, int64_t hi) const {
  if (dtype_ == DType::F32) {
    if (out != slots_[0]) {
      std::memcpy(out + lo, static_cast<const float*>(slots_[0]) + lo, static_cast<size_t>(hi - lo) * sizeof(float));
    }
    return;
  }
  const Half* s = static_cast<const Half*>(slots_[0]);
  for (int64_t i = lo; i < hi; ++i) {
    out[i] = static_cast<float>(s[i]);
  }
}

void GradTree::add_root_f32(float* out, int64_t lo, int64_t hi) const {
  if (dtype_ == DType::F32) {
    const auto* s = static_cast<const float*>(slots_[0]);
    for (int64_t i = lo; i < hi; ++i) {
      out[i] += s[i];
    }
    return;
  }
  const Half* s = static_cast<const Half*>(slots_[0]);
  for (int64_t i = lo; i < hi; ++i) {
    out[i] += static_cast<float>(s[i]);
  }
}

ReduceScratch::ReduceScratch(int64_t max_blocks_total)
    : values(static_cast<size_t>(kChunk * std::max<int64_t>(1, max_blocks_total))) {
  blocks.reserve(static_cast<size_t>(std::max<int64_t>(1, max_blocks_total)));
}

namespace {

// Elements [a, a + n) of each of `t`'s blocks onto the combined stack (one kChunk row per entry of
// `scratch`), each merged down the stack as the counter does.
void push_tree(const GradTree& t, DType dtype, GradientAccumulationOrder order, int64_t a, int64_t n,
               std::vector<TreeBlock>& stack, float* scratch) {
  const bool half = dtype == DType::F16;
  for (size_t k = 0; k < t.blocks().size(); ++k) {
    if (stack.size() == stack.capacity()) {
      throw Error(ErrorKind::Internal, "cross-replica reduction: more partial sums than planned");
    }
    float* top = scratch + static_cast<int64_t>(stack.size()) * kChunk;
    for (int64_t i = 0; i < n; ++i) {
      top[i] = load(t.slot(k), dtype, a + i);
    }
    push_block(order, stack, t.blocks()[k], [&](size_t left) {
      float* l = scratch + static_cast<int64_t>(left) * kChunk;
      const float* r = l + kChunk;
      for (int64_t i = 0; i < n; ++i) {
        l[i] = stored(l[i] + r[i], half);
      }
    });
  }
}

}  // namespace

void reduce_slice(std::span<GradTree* const> trees, int64_t lo, int64_t hi, ReduceScratch& work, GradTree* only) {
  const DType dtype = trees.front()->dtype();
  const GradientAccumulationOrder order = trees.front()->order();
  const bool half = dtype == DType::F16;
  std::vector<TreeBlock>& stack = work.blocks;
  float* scratch = work.values.data();
  for (int64_t a = lo; a < hi; a += kChunk) {
    const int64_t n = std::min(kChunk, hi - a);
    stack.clear();
    for (GradTree* t : trees) {
      push_tree(*t, dtype, order, a, n, stack, scratch);  // each replica's blocks in turn
    }
    for (size_t j = stack.size(); j-- > 1;) {
      float* l = scratch + static_cast<int64_t>(j - 1) * kChunk;
      const float* r = l + kChunk;
      for (int64_t i = 0; i < n; ++i) {
        l[i] = stored(l[i] + r[i], half);
      }
    }
    for (GradTree* t : trees) {
      if (only != nullptr && t != only) {
        continue;
      }
      if (half) {
        Half* d = static_cast<Half*>(t->slot(0)) + a;
        for (int64_t i = 0; i < n; ++i) {
          d[i] = Half(scratch[i]);
        }
      } else {
        std::memcpy(static_cast<float*>(t->slot(0)) + a, scratch, static_cast<size_t>(n) * sizeof(float));
      }
    }
  }
}

}  // namespace iputrain::engine

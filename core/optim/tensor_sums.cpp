#include "core/optim/tensor_sums.hpp"

#include <algorithm>

namespace iputrain::optim {

double grain_squares(const float* x, int64_t n) {
  // A plain loop in order: no vector reduction whose grouping would depend on the alignment.
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto v = static_cast<double>(x[i]);
    sum += v * v;
  }
  return sum;
}

void grains_of(const float* x, int64_t n, double* out) {
  for (int64_t a = 0; a < n; a += kShardGrain) {
    *out++ = grain_squares(x + a, std::min(kShardGrain, n - a));
  }
}

double tensor_squares(const float* x, int64_t n) {
  double total = 0;
  for (int64_t a = 0; a < n; a += kShardGrain) {
    total += grain_squares(x + a, std::min(kShardGrain, n - a));
  }
  return total;
}

void LocalSums::complete(const std::vector<ParamSlot>& params, int32_t quantities, std::span<const double> grains,
                         std::span<double> totals) {
  size_t at = 0;
  for (size_t k = 0; k < params.size(); ++k) {
    const auto count = static_cast<size_t>(shard_grains(params[k].size));
    for (int32_t q = 0; q < quantities; ++q) {
      double total = 0;
      for (size_t j = 0; j < count; ++j) {
        total += grains[at + j];
      }
      totals[k * static_cast<size_t>(quantities) + static_cast<size_t>(q)] = total;
      at += count;
    }
  }
}

size_t PairNorms::grain_count(const std::vector<ParamSlot>& params) {
  size_t grains = 0;
  for (const ParamSlot& p : params) {
    grains += 2 * static_cast<size_t>(shard_grains(p.size));
  }
  return grains;
}

void PairNorms::reserve(const std::vector<ParamSlot>& params) {
  if (grains_.size() < grain_count(params)) {
    grains_.resize(grain_count(params));
  }
  if (totals_.size() < 2 * params.size()) {
    totals_.resize(2 * params.size());
  }
}

void PairNorms::complete(const std::vector<ParamSlot>& params, TensorSums& sums) {
  sums.complete(params, 2, std::span<const double>(grains_.data(), grain_count(params)),
                std::span<double>(totals_.data(), 2 * params.size()));
}

}  // namespace iputrain::optim

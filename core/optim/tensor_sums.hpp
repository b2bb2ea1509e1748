// Sums of squares over a tensor in a fixed order, so that a norm comes out the same bits whether
// one replica holds the whole tensor or each holds a block of it (sharded optimizer state).
// The tensor is cut into grains of kShardGrain elements; each grain's squares are added
// one after the other in double, and the grains' sums are added in the tensor's order. A block
// of a sharded tensor starts on a grain, so its grains' sums are the tensor's.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/optim/optimizer.hpp"
#include "core/shard_rule.hpp"

namespace iputrain::optim {

//! Sum of x[i]^2 over n <= kShardGrain elements, in order, in double.
double grain_squares(const float* x, int64_t n);

//! Writes the sums of squares of the grains of `x` (n elements) into `out`
//! (shard_grains(n) entries).
void grains_of(const float* x, int64_t n, double* out);

//! The sum of squares of a whole tensor: its grains' sums added in order.
double tensor_squares(const float* x, int64_t n);

//! TensorSums of slots that are whole tensors: each slot's grains added in order.
class LocalSums final : public TensorSums {
 public:
  void complete(const std::vector<ParamSlot>& params, int32_t quantities, std::span<const double> grains,
                std::span<double> totals) override;
};

//! What an update that scales each tensor by a ratio of two norms over the whole tensor (LAMB's
//! |w| / |u|, LARS's |w| / |g|) keeps: per slot, the grains' squares of the first quantity then of
//! the second, and the two totals TensorSums completes. Sized once by reserve(); no allocation after.
class PairNorms {
 public:
  //! Grain entries `params` need (both quantities).
  static size_t grain_count(const std::vector<ParamSlot>& params);
  void reserve(const std::vector<ParamSlot>& params);
  //! Where the grains' squares are written, slot after slot: shard_grains(size) of the first
  //! quantity, then as many of the second.
  double* grains() { return grains_.data(); }
  //! Completes the totals over whole tensors (every replica's grains in).
  void complete(const std::vector<ParamSlot>& params, TensorSums& sums);
  //! Slot k's sum of squares of quantity q (0 or 1), after complete().
  double total(size_t k, size_t q) const { return totals_[2 * k + q]; }

 private:
  std::vector<double> grains_;
  std::vector<double> totals_;
};

}  // namespace iputrain::optim

#include "engine/cluster/host_outfeed.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cstring>

namespace iputrain::engine {

namespace {
// Element i of t as a double: exact for every dtype (an i32 through f32 would lose its low bits).
double element(const ir::Tensor& t, int64_t i) {
  switch (t.type->dtype) {
    case DType::I32:
      return t.i32()[i];
    case DType::Bool:
      return t.u8()[i] != 0 ? 1.0 : 0.0;
    case DType::U8:
      return t.u8()[i];
    case DType::F16: return static_cast<float>(static_cast<const Eigen::half*>(t.data)[i]);
    case DType::BF16: return static_cast<float>(static_cast<const Eigen::bfloat16*>(t.data)[i]);
    case DType::F32: return t.f32()[i];
  }
  return 0.0;
}

// One term of accumulate_outfeed's sum in the value's own arithmetic: i32 wraps as the device's
// integers do, floats add in f32 (rounded to half with accumulate_outfeed_dtype = "fp16").
double accumulate(const ir::Tensor& t, int64_t i, double acc, bool half) {
  if (t.type->dtype == DType::I32) {
    const auto sum = static_cast<uint32_t>(static_cast<int32_t>(acc)) + static_cast<uint32_t>(t.i32()[i]);
    return static_cast<int32_t>(sum);
  }
  const float sum = static_cast<float>(acc) + static_cast<float>(element(t, i));
  return half ? static_cast<float>(Eigen::half(sum)) : sum;
}
}  // namespace

HostOutfeed::HostOutfeed(const ir::Graph& graph, OutfeedSpec spec, int32_t replicas, int64_t micro_batches,
                         int64_t max_updates_per_execution)
    : spec_(std::move(spec)), replicas_(replicas), micro_batches_(micro_batches), streams_(spec_.values.size()) {
  const int64_t enqueues = spec_.accumulate ? max_updates_per_execution : max_updates_per_execution * micro_batches;
  for (size_t k = 0; k < streams_.size(); ++k) {
    Stream& s = streams_[k];
    s.shape = graph.type(spec_.values[k]).shape;
    s.numel = graph.type(spec_.values[k]).numel();
    s.staging.assign(static_cast<size_t>(enqueues * replicas * s.numel), 0.0);
    if (spec_.accumulate) {
      s.accumulator.assign(static_cast<size_t>(replicas * s.numel), 0.0);
    }
  }
}

std::vector<int32_t> HostOutfeed::indices_of(ir::ValueId v) const {
  std::vector<int32_t> out;
  for (size_t k = 0; k < spec_.values.size(); ++k) {
    if (spec_.values[k] == v) {
      out.push_back(static_cast<int32_t>(k));
    }
  }
  return out;
}

int32_t HostOutfeed::index_of(ir::ValueId v) const {
  const auto it = std::find(spec_.values.begin(), spec_.values.end(), v);
  return it == spec_.values.end() ? -1 : static_cast<int32_t>(it - spec_.values.begin());
}

void HostOutfeed::enqueue(size_t k, int32_t replica, int64_t local_update, int64_t m, const ir::Tensor& t) {
  Stream& s = streams_[k];
  if (!spec_.accumulate) {
    const int64_t e = local_update * micro_batches_ + m;
    double* dst = s.staging.data() + (e * replicas_ + replica) * s.numel;
    for (int64_t i = 0; i < s.numel; ++i) {
      dst[i] = element(t, i);
    }
    return;
  }
  // A plain sum over the update's micro-batches (the seed's accumulate_outfeed never averages).
  double* acc = s.accumulator.data() + replica * s.numel;
  for (int64_t i = 0; i < s.numel; ++i) {
    acc[i] = accumulate(t, i, m == 0 ? 0.0 : acc[i], spec_.accumulate_f16);
  }
  if (m == micro_batches_ - 1) {
    std::copy(acc, acc + s.numel, s.staging.data() + (local_update * replicas_ + replica) * s.numel);
  }
}

void HostOutfeed::share(InstanceLink& link, int32_t channel, int32_t first, int32_t local, int64_t updates) {
  const int64_t enqueues = spec_.accumulate ? updates : updates * micro_batches_;
  Bytes mine;
  for (const Stream& s : streams_) {
    const int64_t run = local * s.numel;  // this instance's replicas of one element
    for (int64_t e = 0; e < enqueues; ++e) {
      const char* src = reinterpret_cast<const char*>(s.staging.data() + (e * replicas_ + first) * s.numel);
      mine.insert(mine.end(), src, src + run * static_cast<int64_t>(sizeof(double)));
    }
  }
  const std::vector<Bytes>& all = link.all_gather(channel, mine);
  for (int32_t q = 0; q < link.count(); ++q) {
    if (q == link.index()) {
      continue;
    }
    const char* at = all[static_cast<size_t>(q)].data();
    for (Stream& s : streams_) {
      const int64_t run = local * s.numel;
      for (int64_t e = 0; e < enqueues; ++e) {
        std::memcpy(s.staging.data() + (e * replicas_ + q * local) * s.numel, at,
                    static_cast<size_t>(run) * sizeof(double));
        at += run * static_cast<int64_t>(sizeof(double));
      }
    }
  }
}

void HostOutfeed::commit(int64_t updates) {
  const int64_t enqueues = spec_.accumulate ? updates : updates * micro_batches_;
  if (enqueues == 0) {
    return;
  }
  std::lock_guard lock(mu_);
  for (Stream& s : streams_) {
    const int64_t element_floats = replicas_ * s.numel;
    const auto first = s.staging.begin();
    if (spec_.last_only) {
      s.published.assign(first + (enqueues - 1) * element_floats, first + enqueues * element_floats);
      s.elements = 1;
    } else {
      s.published.insert(s.published.end(), first, first + enqueues * element_floats);
      s.elements += enqueues;
    }
  }
}

std::vector<OutfeedTensor> HostOutfeed::dequeue() {
  std::lock_guard lock(mu_);
  std::vector<OutfeedTensor> out;
  for (size_t k = 0; k < streams_.size(); ++k) {
    Stream& s = streams_[k];
    if (s.elements == 0) {
      continue;
    }
    out.push_back(OutfeedTensor{spec_.names[k], shape(k, s.elements), std::move(s.published)});
    s.published.clear();
    s.elements = 0;
  }
  return out;
}

std::vector<int64_t> HostOutfeed::shape(size_t k, int64_t elements) const {
  std::vector<int64_t> shape;
  if (!spec_.last_only) {
    shape.push_back(elements);
  }
  if (replicas_ > 1) {
    shape.push_back(replicas_);
  }
  shape.insert(shape.end(), streams_[k].shape.begin(), streams_[k].shape.end());
  return shape;
}

}  // namespace iputrain::engine

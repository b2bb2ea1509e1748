// Session::benchmark_data: the seed's dataset benchmark. The infeed runs alone, exactly as training
// runs it (the same sampler, shuffling and prefetch depth, its own thread), and the host takes
// each element as a device would, optionally copying it into a device-sized buffer; each epoch is
// timed. The plan's predicted throughput says how fast one replica's feed has to be.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "engine/session_impl.hpp"

namespace iputrain {

DataBenchmark Session::benchmark_data(const std::string& split, int64_t epochs, int64_t elements_per_epoch,
                                      bool memcpy) {
  Impl& s = *impl_;
  s.check_split(split);
  if (epochs < 1) {
    throw Error(ErrorKind::Usage, fmt::format("{} epochs: the benchmark needs at least 1", epochs), {},
                "pass --epochs 1 or more");
  }
  if (elements_per_epoch < 0) {
    throw Error(ErrorKind::Usage, fmt::format("{} elements per epoch: it cannot be negative", elements_per_epoch),
                {}, "pass --elements 1 or more, or 0 for the split's whole batches");
  }
  const data::Dataset& ds = s.split_data(split);
  const bool shuffle = split == "train" && s.settings.plain.data_shuffle;
  engine::Sampler sampler(ds.size(), s.batch, shuffle, s.shuffle_seed());
  const int64_t per_epoch = elements_per_epoch > 0 ? elements_per_epoch : sampler.steps_per_epoch();

  DataBenchmark r;
  r.split = split;
  r.memcpy = memcpy;
  r.element_samples = s.batch;
  for (const data::Field& f : s.wanted) {
    r.element_bytes += static_cast<int64_t>(f.bytes()) * s.batch;
  }
  r.replicas = s.plan.placement.replicas;
  r.device_samples_per_second = s.plan.cost.samples_per_second;
  r.device_elements_per_second =
      r.device_samples_per_second / static_cast<double>(std::max<int64_t>(1, s.batch) * std::max(1, r.replicas));

  // The device-side buffer a transfer fills: one element, every input back to back.
  std::vector<std::byte> device(static_cast<size_t>(r.element_bytes));
  const std::vector<size_t> fields = s.field_indices(ds);
  for (int64_t e = 0; e < epochs; ++e) {
    const auto begin = std::chrono::steady_clock::now();
    engine::Infeed feed(ds, fields, s.batch, sampler, e * per_epoch, per_epoch, s.settings.plain.data_prefetch_depth);
    for (int64_t i = 0; i < per_epoch; ++i) {
      const engine::Batch& b = feed.pop();
      if (memcpy) {
        size_t at = 0;
        for (const auto& field : b.fields) {
          std::memcpy(device.data() + at, field.data(), field.size());
          at += field.size();
        }
      }
      feed.release();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    // Read the buffer back, so that the copies cannot be optimised away.
    const volatile std::byte last = device.empty() ? std::byte{0} : device.back();
    (void)last;
    DataEpochStats st;
    st.elements_processed = per_epoch;
    st.total_bytes_processed = per_epoch * r.element_bytes;
    st.time_elapsed = seconds;
    st.elements_per_second = seconds > 0 ? static_cast<double>(per_epoch) / seconds : 0;
    st.bandwidth = seconds > 0 ? static_cast<double>(st.total_bytes_processed) / seconds / 1e9 : 0;
    r.epochs.push_back(st);
  }
  double slowest = r.epochs.front().elements_per_second;
  for (const DataEpochStats& st : r.epochs) {
    slowest = std::min(slowest, st.elements_per_second);
  }
  r.feed_bound = slowest < r.device_elements_per_second;
  return r;
}

}  // namespace iputrain

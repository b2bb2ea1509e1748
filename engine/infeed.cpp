#include "engine/infeed.hpp"

#include <fmt/format.h>

#include <numeric>

#include "core/rng.hpp"
#include "iputrain/error.hpp"

namespace iputrain::engine {

Sampler::Sampler(int64_t dataset_size, int64_t batch, bool shuffle, uint64_t seed)
    : size_(dataset_size), batch_(batch), shuffle_(shuffle), seed_(seed) {
  steps_per_epoch_ = batch > 0 ? dataset_size / batch : 0;
  if (steps_per_epoch_ == 0) {
    throw Error(ErrorKind::Data,
                fmt::format("the dataset has {} samples, fewer than one batch of {}", dataset_size, batch),
                {}, "use a smaller data.batch_size or a larger dataset");
  }
}

void Sampler::make_epoch(int64_t epoch) {
  perm_.resize(static_cast<size_t>(size_));
  std::iota(perm_.begin(), perm_.end(), int64_t{0});
  if (shuffle_) {
    // Fisher-Yates driven by the counter-based generator: the order depends on (seed, epoch) only.
    Rng rng(seed_, "data/shuffle", static_cast<uint64_t>(epoch));
    for (int64_t i = size_ - 1; i > 0; --i) {
      const int64_t j = static_cast<int64_t>(rng.below(static_cast<uint64_t>(i + 1)));
      std::swap(perm_[static_cast<size_t>(i)], perm_[static_cast<size_t>(j)]);
    }
  }
  epoch_ = epoch;
}

void Sampler::batch_indices(int64_t step, int64_t* out) {
  const int64_t epoch = step / steps_per_epoch_;
  if (epoch != epoch_) {
    make_epoch(epoch);
  }
  const int64_t base = (step % steps_per_epoch_) * batch_;
  for (int64_t i = 0; i < batch_; ++i) {
    out[i] = perm_[static_cast<size_t>(base + i)];
  }
}

Infeed::Infeed(const data::Dataset& dataset, std::vector<size_t> field_indices, int64_t batch,
               Sampler sampler, int64_t first_step, int64_t steps, int64_t prefetch_depth, BatchOrder order,
               Track* track, const Recorder* clock)
    : dataset_(dataset),
      fields_(std::move(field_indices)),
      batch_(batch),
      sampler_(std::move(sampler)),
      first_step_(first_step),
      steps_(steps),
      order_(order),
      track_(track),
      clock_(clock),
      slots_(static_cast<size_t>(std::max<int64_t>(1, prefetch_depth))),
      indices_(static_cast<size_t>(batch)) {
  for (Batch& b : slots_) {
    for (size_t f : fields_) {
      b.fields.emplace_back(dataset.fields()[f].bytes() * static_cast<size_t>(batch));
    }
  }
  thread_ = std::thread([this] { produce(); });
}

Infeed::~Infeed() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  free_cv_.notify_all();
  thread_.join();
}

void Infeed::produce() {
  try {
    for (int64_t i = 0; i < steps_; ++i) {
      {
        std::unique_lock lock(mu_);
        free_cv_.wait(lock, [&] { return stop_ || produced_ - consumed_ < static_cast<int64_t>(slots_.size()); });
        if (stop_) {
          return;
        }
      }
      // The slot is ours until produced_ is bumped: the consumer never touches unproduced slots.
      const double begin = track_ != nullptr ? clock_->now_us() : 0;
      Batch& b = slots_[static_cast<size_t>(i) % slots_.size()];
      b.step = order_.batch(first_step_, i);
      sampler_.batch_indices(b.step, indices_.data());
      for (size_t k = 0; k < fields_.size(); ++k) {
        const size_t bytes = dataset_.fields()[fields_[k]].bytes();
        std::byte* dst = b.fields[k].data();
        for (int64_t s = 0; s < batch_; ++s) {
          dataset_.read(indices_[static_cast<size_t>(s)], fields_[k], dst + static_cast<size_t>(s) * bytes);
        }
      }
      if (track_ != nullptr) {
        track_->events.push_back(TraceEvent{planner::InstrKind::Infeed, -1, i % order_.group,
                                            first_step_ + i / order_.group, begin, clock_->now_us(), 0, 0});
      }
      {
        std::lock_guard lock(mu_);
        ++produced_;
      }
      ready_cv_.notify_one();
    }
  } catch (...) {
    std::lock_guard lock(mu_);
    error_ = std::current_exception();
    ready_cv_.notify_all();
  }
}

const Batch& Infeed::pop() {
  std::unique_lock lock(mu_);
  if (consumed_ >= steps_) {
    throw Error(ErrorKind::Internal, "infeed read past its last batch");
  }
  ready_cv_.wait(lock, [&] { return produced_ > consumed_ || error_; });
  if (produced_ <= consumed_ && error_) {
    std::rethrow_exception(error_);
  }
  popped_ = true;
  return slots_[static_cast<size_t>(consumed_) % slots_.size()];
}

void Infeed::release() {
  {
    std::lock_guard lock(mu_);
    if (!popped_) {
      return;
    }
    popped_ = false;
    ++consumed_;
  }
  free_cv_.notify_one();
}

}  // namespace iputrain::engine

// The host infeed: a thread that assembles batches from a dataset ahead of the device, into a
// fixed ring of preallocated slots (prefetch_depth deep), in a deterministic sample order.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/data/dataset.hpp"
#include "engine/cluster/recorder.hpp"

namespace iputrain::engine {

//! Which samples make up batch `step`: epochs of floor(size / batch) whole batches; with shuffling
//! each epoch is a fresh permutation keyed by (seed, epoch) only, never by thread or timing.
class Sampler {
 public:
  Sampler(int64_t dataset_size, int64_t batch, bool shuffle, uint64_t seed);
  int64_t steps_per_epoch() const { return steps_per_epoch_; }
  //! Fills `out` (batch entries) with the sample indices of batch `step` (0-based).
  void batch_indices(int64_t step, int64_t* out);

 private:
  void make_epoch(int64_t epoch);

  int64_t size_;
  int64_t batch_;
  bool shuffle_;
  uint64_t seed_;
  int64_t steps_per_epoch_;
  int64_t epoch_ = -1;
  std::vector<int64_t> perm_;
};

//! One prepared batch: for each bound field, `batch` samples back to back.
struct Batch {
  int64_t step = 0;
  std::vector<std::vector<std::byte>> fields;
};

//! Which batches of the sample stream a feed serves: its i-th batch is batch
//! ((first + i / group) * stride + offset) * group + i % group. A replica r of R with A micro-batches
//! per update feeds group = A, stride = R, offset = r: micro-batch m of update u is batch (u R + r) A + m.
struct BatchOrder {
  int64_t group = 1;
  int64_t stride = 1;
  int64_t offset = 0;
  int64_t batch(int64_t first, int64_t i) const { return ((first + i / group) * stride + offset) * group + i % group; }
};

class Infeed {
 public:
  //! Streams `steps` batches of `dataset` in `order` from `first` on (by default batches first ..
  //! first+steps-1); `field_indices` picks the dataset fields in the order the device wants them.
  //! Starts the thread immediately.
  Infeed(const data::Dataset& dataset, std::vector<size_t> field_indices, int64_t batch, Sampler sampler,
         int64_t first_step, int64_t steps, int64_t prefetch_depth, BatchOrder order = {},
         Track* track = nullptr, const Recorder* clock = nullptr);
  ~Infeed();
  Infeed(const Infeed&) = delete;
  Infeed& operator=(const Infeed&) = delete;

  //! Blocks until the next batch is ready and returns it; rethrows an error of the infeed thread.
  const Batch& pop();
  //! Returns the slot of the last popped batch to the producer.
  void release();

 private:
  void produce();

  const data::Dataset& dataset_;
  std::vector<size_t> fields_;
  int64_t batch_;
  Sampler sampler_;
  int64_t first_step_;
  int64_t steps_;
  BatchOrder order_;
  Track* track_;  // when tracing: one event per batch prepared (written by the feed thread only)
  const Recorder* clock_;

  std::vector<Batch> slots_;
  std::vector<int64_t> indices_;
  std::mutex mu_;
  std::condition_variable ready_cv_;
  std::condition_variable free_cv_;
  int64_t produced_ = 0;  // batches filled so far
  int64_t consumed_ = 0;  // batches released so far
  bool popped_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace iputrain::engine

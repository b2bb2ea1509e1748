// The host outfeed queue (the seed's IPUOutfeedQueue): what the device enqueues each micro-batch,
// per replica, and what the host dequeues. Mode ALL keeps every element and dequeues them as
// [n, (replicas,) ...shape]; LAST keeps only the newest, [(replicas,) ...shape] (the replica axis
// only with more than one replica). With accumulate_outfeed the values are summed over the
// micro-batches of a weight update and enqueued once per update.
//
// Workers write into a staging area sized for one device execution (no allocation while they
// run); the host publishes an execution's elements when it ends, after which any thread may
// dequeue them while the next execution runs.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "engine/distributed/instance_link.hpp"
#include "iputrain/session.hpp"

namespace iputrain::engine {

struct OutfeedSpec {
  std::vector<ir::ValueId> values;  //!< enqueued values, in order
  std::vector<std::string> names;
  bool last_only = false;           //!< training.outfeed_mode = "last"
  bool accumulate = false;          //!< pipeline.accumulate_outfeed
  bool accumulate_f16 = false;      //!< pipeline.accumulate_outfeed_dtype = "fp16": round each sum
};

class HostOutfeed {
 public:
  HostOutfeed(const ir::Graph& graph, OutfeedSpec spec, int32_t replicas, int64_t micro_batches,
              int64_t max_updates_per_execution);

  //! Position of `v` among the enqueued values, or -1.
  int32_t index_of(ir::ValueId v) const;
  //! Every position of `v` among the enqueued values (two outputs may be one value).
  std::vector<int32_t> indices_of(ir::ValueId v) const;
  //! Device side: replica `replica` computed value `k` for micro-batch `m` of the execution's
  //! update `local_update`. Each (k, replica) is written by one worker only.
  void enqueue(size_t k, int32_t replica, int64_t local_update, int64_t m, const ir::Tensor& t);
  //! Several instances, before commit(): fills the other instances' replicas into the staging
  //! area from their copies over `channel` (this one holds replicas first .. first + local - 1).
  void share(InstanceLink& link, int32_t channel, int32_t first, int32_t local, int64_t updates);
  //! Host side, after an execution of `updates` updates: makes its elements dequeuable.
  void commit(int64_t updates);
  //! Any thread: takes what has been published so far (ALL: every element; LAST: the newest).
  std::vector<OutfeedTensor> dequeue();
  //! The shape dequeue() gives value k for `elements` elements (ALL) or one element (LAST).
  std::vector<int64_t> shape(size_t k, int64_t elements) const;
  const OutfeedSpec& spec() const { return spec_; }

 private:
  struct Stream {
    int64_t numel = 0;
    Shape shape;
    std::vector<double> staging;      // [enqueues per execution][replicas][numel]
    std::vector<double> accumulator;  // [replicas][numel]
    std::vector<double> published;    // ALL: [n][replicas][numel]; LAST: [replicas][numel]
    int64_t elements = 0;
  };

  OutfeedSpec spec_;
  int32_t replicas_;
  int64_t micro_batches_;
  std::vector<Stream> streams_;
  std::mutex mu_;  // guards `published` and `elements`
};

}  // namespace iputrain::engine

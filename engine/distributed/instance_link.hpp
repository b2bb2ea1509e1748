// How the instances of a run reach each other: byte messages between processes, nothing else.
// The cluster decides what the bytes are and in which order they are added (engine/cluster/
// instance_reduce.cpp), so no floating-point reduction of the transport's is ever used.
//
// Channels: one per IPU of a replica (its replicas' reductions, issued in the program's order)
// and one for the host (step values, outfeed, stop requests), each its own MPI communicator so
// that the worker threads of different IPUs exchange at the same time without mixing messages.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace iputrain::engine {

using Bytes = std::vector<char>;

class InstanceLink {
 public:
  virtual ~InstanceLink() = default;
  int32_t count() const { return count_; }
  int32_t index() const { return index_; }
  //! The messages `channel` sends next, one per instance, emptied with their capacity kept: fill
  //! out[q] for every other instance q, then call exchange(). Buffers are the link's and reused, so
  //! a run's reductions allocate nothing once every message has been as large once.
  std::vector<Bytes>& outbox(int32_t channel);
  //! Sends the outbox of `channel` and returns what each other instance q sent here (in[index()]
  //! is left empty), in buffers that stay valid until the channel's next exchange. Every instance
  //! calls it in the same order on a channel; one thread uses a channel at a time. Throws
  //! Error(Runtime) naming the instances that did not answer within the link's timeout.
  virtual const std::vector<Bytes>& exchange(int32_t channel) = 0;
  //! Sends the same bytes to everyone: the outbox filled with `n` bytes at `data`, then exchange().
  const std::vector<Bytes>& all_gather(int32_t channel, const void* data, size_t n);
  const std::vector<Bytes>& all_gather(int32_t channel, const Bytes& mine) {
    return all_gather(channel, mine.data(), mine.size());
  }
  //! Makes every exchange() under way or to come throw Aborted (engine/cluster/mailbox.hpp):
  //! another thread of this instance failed, and its error is the one to report.
  void abort() { aborted_ = true; }
  bool aborted() const { return aborted_; }

 protected:
  InstanceLink(int32_t count, int32_t index, int32_t channels);
  //! What the caller put in the outbox of `channel`, for exchange() to send.
  const std::vector<Bytes>& filled_outbox(int32_t channel) const { return outboxes_.at(static_cast<size_t>(channel)); }
  //! Where exchange() receives the messages of `channel`.
  std::vector<Bytes>& inbox(int32_t channel) { return inboxes_.at(static_cast<size_t>(channel)); }

 private:
  int32_t count_;
  int32_t index_;
  std::vector<std::vector<Bytes>> outboxes_;  // [channel][instance]
  std::vector<std::vector<Bytes>> inboxes_;   // [channel][instance]
  std::atomic<bool> aborted_{false};
};

//! The MPI link of the run this process joined (join_instances()), with `channels` channels.
//! Throws Error when the process is alone or the build has no MPI.
std::unique_ptr<InstanceLink> make_instance_link(int32_t channels);

//! Seconds an instance waits for another before giving up: IPUTRAIN_INSTANCE_TIMEOUT, else 300.
double instance_timeout_seconds();

}  // namespace iputrain::engine

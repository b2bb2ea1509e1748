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
  //! Sends out[q] to every other instance q on `channel` and returns what each sent here
  //! (in[index()] is left empty). Every instance calls it in the same order on a channel. Throws
  //! Error(Runtime) naming the instances that did not answer within the link's timeout.
  virtual std::vector<Bytes> exchange(int32_t channel, const std::vector<Bytes>& out) = 0;
  //! Sends the same bytes to everyone: exchange() with out[q] = mine for every q.
  std::vector<Bytes> all_gather(int32_t channel, const Bytes& mine);
  //! Makes every exchange() under way or to come throw Aborted (engine/cluster/mailbox.hpp):
  //! another thread of this instance failed, and its error is the one to report.
  void abort() { aborted_ = true; }
  bool aborted() const { return aborted_; }

 protected:
  InstanceLink(int32_t count, int32_t index) : count_(count), index_(index) {}

 private:
  int32_t count_;
  int32_t index_;
  std::atomic<bool> aborted_{false};
};

//! The MPI link of the run this process joined (join_instances()), with `channels` channels.
//! Throws Error when the process is alone or the build has no MPI.
std::unique_ptr<InstanceLink> make_instance_link(int32_t channels);

//! Seconds an instance waits for another before giving up: IPUTRAIN_INSTANCE_TIMEOUT, else 300.
double instance_timeout_seconds();

}  // namespace iputrain::engine

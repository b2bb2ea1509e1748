// The one-way link between two virtual IPUs of a replica: a bounded mailbox of preallocated
// message slots. The sender blocks while every slot is taken, the receiver blocks until the
// message it asks for (by tag) is there, so messages may arrive in any order. Waits sleep on
// condition variables; abort() wakes every waiter so an error on one IPU cannot hang the others.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/cluster/stall_detector.hpp"

namespace iputrain::engine {

//! Thrown out of a wait when the cluster is being torn down after an error elsewhere.
struct Aborted {};

class Mailbox {
 public:
  struct Slot {
    std::byte* data = nullptr;   //!< `slot_bytes` bytes, 64-byte aligned
    int64_t tag = -1;
    double sim_sent = 0;         //!< simulated cycle at which the Send of the message started
    double sim_freed = 0;        //!< simulated cycle from which the Send that took the slot may start
  };

  Mailbox(int32_t capacity, int64_t slot_bytes);

  //! Blocks until a slot is free and hands it to the sender to fill. With a detector in `wait`,
  //! throws Error(Internal) instead of sleeping when the wait would complete a deadlock.
  Slot& begin_send(const WaitContext& wait = {});
  //! Publishes the slot filled since begin_send() as message `tag`.
  void end_send(Slot& slot, int64_t tag, double sim_sent);
  //! Blocks until message `tag` is in the mailbox and hands its slot to the receiver.
  Slot& begin_recv(int64_t tag, const WaitContext& wait = {});
  //! Frees the slot read since begin_recv(). The Recv started at simulated cycle `sim_freed`: in
  //! simulated time the link has room for one more message from then on.
  void end_recv(Slot& slot, double sim_freed);

  //! Wakes every waiter with Aborted, now and in every later wait, until reset().
  void abort();
  //! Empties the mailbox and clears an abort (between runs).
  void reset();

  int32_t capacity() const { return static_cast<int32_t>(slots_.size()); }
  int64_t slot_bytes() const { return slot_bytes_; }
  //! Most messages ever held at once (sent, not yet received).
  int32_t peak_in_flight() const;

 private:
  enum class State : uint8_t { Free, Writing, Full, Reading };
  struct Free {
    void operator()(std::byte* p) const;
  };

  int64_t slot_bytes_;
  std::unique_ptr<std::byte, Free> memory_;
  std::vector<Slot> slots_;
  std::vector<State> state_;
  mutable std::mutex mu_;
  std::condition_variable not_full_;
  std::condition_variable arrived_;
  int32_t in_flight_ = 0;  // Writing, Full or Reading
  // Simulated time: the k-th send may start when the (k - capacity)-th receive has started. The
  // receiver takes messages in its program order, not necessarily the order they were sent in, so
  // that is not when the slot the sender happens to get was freed: the receives' start cycles, in
  // the order they happened and not yet claimed by a send (at most `capacity`, so a ring allocated
  // once: no allocation per message), and the sends so far.
  std::vector<double> freed_;
  size_t freed_head_ = 0;
  size_t freed_count_ = 0;
  int64_t sends_ = 0;
  int32_t peak_ = 0;
  bool aborted_ = false;
  // The sender and receiver asleep, if any (one of each per link).
  WaitContext sender_waiting_;
  WaitContext receiver_waiting_;
  int64_t receiver_tag_ = -1;
};

}  // namespace iputrain::engine

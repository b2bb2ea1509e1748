#include "engine/cluster/mailbox.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "engine/cluster/alignment.hpp"
#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace {
// Registers a waiter with its detector; throws if its sleep would be a deadlock.
void register_wait(const WaitContext& wait) {
  if (wait.detector == nullptr) {
    return;
  }
  const std::string stall = wait.detector->block(wait.worker, wait.at);
  if (!stall.empty()) {
    throw Error(ErrorKind::Internal, stall, {},
                "the plan's links hold fewer messages than its schedule needs; please report this plan");
  }
}

void wake(WaitContext& waiting) {
  if (waiting.detector != nullptr) {
    waiting.detector->wake(waiting.worker);
  }
  waiting = WaitContext{};
}
}  // namespace

void Mailbox::Free::operator()(std::byte* p) const { std::free(p); }

Mailbox::Mailbox(int32_t capacity, int64_t slot_bytes)
    : slot_bytes_(slot_bytes),
      slots_(static_cast<size_t>(std::max(1, capacity))),
      state_(slots_.size(), State::Free) {
  freed_.assign(slots_.size(), 0.0);
  const size_t stride = buffer_aligned(static_cast<size_t>(std::max<int64_t>(1, slot_bytes)));
  memory_.reset(static_cast<std::byte*>(std::aligned_alloc(kBufferAlign, stride * slots_.size())));
  if (!memory_) {
    throw Error(ErrorKind::Runtime, fmt::format("cannot allocate {} bytes for a link", stride * slots_.size()));
  }
  for (size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].data = memory_.get() + i * stride;
  }
}

Mailbox::Slot& Mailbox::begin_send(const WaitContext& wait) {
  std::unique_lock lock(mu_);
  if (!aborted_ && in_flight_ == capacity()) {
    register_wait(wait);
    sender_waiting_ = wait;
  }
  not_full_.wait(lock, [&] { return aborted_ || in_flight_ < capacity(); });
  if (aborted_) {
    throw Aborted{};
  }
  const auto it = std::find(state_.begin(), state_.end(), State::Free);
  *it = State::Writing;
  peak_ = std::max(peak_, ++in_flight_);
  Slot& slot = slots_[static_cast<size_t>(it - state_.begin())];
  // Fewer than `capacity` messages in flight: at least sends_ - capacity + 1 receives are done.
  slot.sim_freed = 0;
  if (sends_++ >= capacity()) {
    slot.sim_freed = freed_[freed_head_];
    freed_head_ = (freed_head_ + 1) % freed_.size();
    --freed_count_;
  }
  return slot;
}

void Mailbox::end_send(Slot& slot, int64_t tag, double sim_sent) {
  {
    std::lock_guard lock(mu_);
    slot.tag = tag;
    slot.sim_sent = sim_sent;
    state_[static_cast<size_t>(&slot - slots_.data())] = State::Full;
    if (receiver_tag_ == tag) {
      wake(receiver_waiting_);
      receiver_tag_ = -1;
    }
  }
  arrived_.notify_all();
}

Mailbox::Slot& Mailbox::begin_recv(int64_t tag, const WaitContext& wait) {
  std::unique_lock lock(mu_);
  size_t found = slots_.size();
  const auto there = [&] {
    for (found = 0; found < slots_.size(); ++found) {
      if (state_[found] == State::Full && slots_[found].tag == tag) {
        break;
      }
    }
    return aborted_ || found < slots_.size();
  };
  if (!there()) {
    register_wait(wait);
    receiver_waiting_ = wait;
    receiver_tag_ = tag;
  }
  arrived_.wait(lock, there);
  if (aborted_) {
    throw Aborted{};
  }
  state_[found] = State::Reading;
  return slots_[found];
}

void Mailbox::end_recv(Slot& slot, double sim_freed) {
  {
    std::lock_guard lock(mu_);
    freed_[(freed_head_ + freed_count_++) % freed_.size()] = sim_freed;
    wake(sender_waiting_);
    state_[static_cast<size_t>(&slot - slots_.data())] = State::Free;
    slot.tag = -1;
    --in_flight_;
  }
  not_full_.notify_all();
}

void Mailbox::abort() {
  {
    std::lock_guard lock(mu_);
    aborted_ = true;
  }
  not_full_.notify_all();
  arrived_.notify_all();
}

void Mailbox::reset() {
  std::lock_guard lock(mu_);
  std::fill(state_.begin(), state_.end(), State::Free);
  for (Slot& s : slots_) {
    s = Slot{s.data};
  }
  in_flight_ = 0;
  freed_head_ = freed_count_ = 0;
  sends_ = 0;
  aborted_ = false;
  sender_waiting_ = WaitContext{};
  receiver_waiting_ = WaitContext{};
  receiver_tag_ = -1;
}

int32_t Mailbox::peak_in_flight() const {
  std::lock_guard lock(mu_);
  return peak_;
}

}  // namespace iputrain::engine

#include "engine/cluster/mailbox.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace {
constexpr size_t kAlign = 64;
size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
}  // namespace

void Mailbox::Free::operator()(std::byte* p) const { std::free(p); }

Mailbox::Mailbox(int32_t capacity, int64_t slot_bytes)
    : slot_bytes_(slot_bytes),
      slots_(static_cast<size_t>(std::max(1, capacity))),
      state_(slots_.size(), State::Free) {
  const size_t stride = align_up(static_cast<size_t>(std::max<int64_t>(1, slot_bytes)));
  memory_.reset(static_cast<std::byte*>(std::aligned_alloc(kAlign, stride * slots_.size())));
  if (!memory_) {
    throw Error(ErrorKind::Runtime, fmt::format("cannot allocate {} bytes for a link", stride * slots_.size()));
  }
  for (size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].data = memory_.get() + i * stride;
  }
}

Mailbox::Slot& Mailbox::begin_send() {
  std::unique_lock lock(mu_);
  not_full_.wait(lock, [&] { return aborted_ || in_flight_ < capacity(); });
  if (aborted_) {
    throw Aborted{};
  }
  const auto it = std::find(state_.begin(), state_.end(), State::Free);
  *it = State::Writing;
  peak_ = std::max(peak_, ++in_flight_);
  return slots_[static_cast<size_t>(it - state_.begin())];
}

void Mailbox::end_send(Slot& slot, int64_t tag, double sim_sent) {
  {
    std::lock_guard lock(mu_);
    slot.tag = tag;
    slot.sim_sent = sim_sent;
    state_[static_cast<size_t>(&slot - slots_.data())] = State::Full;
  }
  arrived_.notify_all();
}

Mailbox::Slot& Mailbox::begin_recv(int64_t tag) {
  std::unique_lock lock(mu_);
  size_t found = slots_.size();
  arrived_.wait(lock, [&] {
    for (found = 0; found < slots_.size(); ++found) {
      if (state_[found] == State::Full && slots_[found].tag == tag) {
        break;
      }
    }
    return aborted_ || found < slots_.size();
  });
  if (aborted_) {
    throw Aborted{};
  }
  state_[found] = State::Reading;
  return slots_[found];
}

void Mailbox::end_recv(Slot& slot, double sim_freed) {
  {
    std::lock_guard lock(mu_);
    slot.sim_freed = sim_freed;
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
  aborted_ = false;
}

int32_t Mailbox::peak_in_flight() const {
  std::lock_guard lock(mu_);
  return peak_;
}

}  // namespace iputrain::engine

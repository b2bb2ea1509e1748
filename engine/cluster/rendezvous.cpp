#include "engine/cluster/rendezvous.hpp"

#include <algorithm>

#include "engine/cluster/mailbox.hpp"

namespace iputrain::engine {

Rendezvous::Rendezvous(int32_t parties) : parties_(parties) {
  for (auto& v : values_) {
    v.assign(static_cast<size_t>(parties), 0.0);
  }
}

Rendezvous::Met Rendezvous::arrive(int32_t who, double value, double sim) {
  std::unique_lock lock(mu_);
  if (aborted_) {
    throw Aborted{};
  }
  const int64_t gen = generation_;
  const size_t buf = static_cast<size_t>(gen % 2);
  if (arrived_ == 0) {
    latest_[buf] = sim;
  }
  values_[buf][static_cast<size_t>(who)] = value;
  latest_[buf] = std::max(latest_[buf], sim);
  if (++arrived_ == parties_) {
    arrived_ = 0;
    ++generation_;
    lock.unlock();
    cv_.notify_all();
  } else {
    cv_.wait(lock, [&] { return aborted_ || generation_ != gen; });
    if (generation_ == gen) {
      throw Aborted{};
    }
  }
  return Met{values_[buf].data(), latest_[buf]};
}

void Rendezvous::abort() {
  {
    std::lock_guard lock(mu_);
    aborted_ = true;
  }
  cv_.notify_all();
}

void Rendezvous::reset() {
  std::lock_guard lock(mu_);
  arrived_ = 0;
  aborted_ = false;
}

}  // namespace iputrain::engine

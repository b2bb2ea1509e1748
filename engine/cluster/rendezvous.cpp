#include "engine/cluster/rendezvous.hpp"

#include <algorithm>

#include "engine/cluster/mailbox.hpp"
#include "iputrain/error.hpp"

namespace iputrain::engine {

Rendezvous::Rendezvous(int32_t parties) : parties_(parties) {
  waiting_.reserve(static_cast<size_t>(parties));
  for (auto& v : values_) {
    v.assign(static_cast<size_t>(parties), 0.0);
  }
}

Rendezvous::Met Rendezvous::arrive(int32_t who, double value, double sim, const WaitContext& wait) {
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
    for (const WaitContext& w : waiting_) {
      w.detector->wake(w.worker);
    }
    waiting_.clear();
    lock.unlock();
    cv_.notify_all();
  } else {
    if (wait.detector != nullptr) {
      const std::string stall = wait.detector->block(wait.worker, wait.at);
      if (!stall.empty()) {
        throw Error(ErrorKind::Internal, stall, {}, "the IPUs' programs wait for each other; please report this plan");
      }
      waiting_.push_back(wait);
    }
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
  waiting_.clear();
}

}  // namespace iputrain::engine

#include "engine/cluster/stall_detector.hpp"

#include <fmt/format.h>

namespace iputrain::engine {

StallDetector::StallDetector(const planner::DevicePrograms* programs, std::vector<std::string> names)
    : programs_(programs),
      names_(std::move(names)),
      waiting_at_(names_.size(), nullptr),
      blocked_(names_.size(), false) {}

void StallDetector::start() {
  std::lock_guard lock(mu_);
  std::fill(waiting_at_.begin(), waiting_at_.end(), nullptr);
  std::fill(blocked_.begin(), blocked_.end(), false);
  active_ = static_cast<int32_t>(names_.size());
  blocked_count_ = 0;
}

std::string StallDetector::block(int32_t w, const planner::Instr* at) {
  std::lock_guard lock(mu_);
  blocked_[static_cast<size_t>(w)] = true;
  waiting_at_[static_cast<size_t>(w)] = at;
  ++blocked_count_;
  return blocked_count_ == active_ ? report_locked() : std::string();
}

void StallDetector::wake(int32_t w) {
  std::lock_guard lock(mu_);
  if (blocked_[static_cast<size_t>(w)]) {
    blocked_[static_cast<size_t>(w)] = false;
    waiting_at_[static_cast<size_t>(w)] = nullptr;
    --blocked_count_;
  }
}

std::string StallDetector::done(int32_t w) {
  std::lock_guard lock(mu_);
  --active_;
  return active_ > 0 && blocked_count_ == active_ ? report_locked() : std::string();
}

std::string StallDetector::report_locked() const {
  std::string out = "the virtual IPUs deadlocked:";
  for (size_t w = 0; w < names_.size(); ++w) {
    if (blocked_[w]) {
      const planner::Instr* at = waiting_at_[w];
      out += fmt::format(" {} waits at `{}`;", names_[w],
                         at != nullptr && programs_ != nullptr ? at->str(*programs_) : "a link");
    }
  }
  return out;
}

}  // namespace iputrain::engine

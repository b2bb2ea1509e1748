#include "cli/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace iputrain::cli {

namespace {
double epoch_of(int64_t step, const Progress& p) {
  return p.steps_per_epoch > 0 ? static_cast<double>(step) / static_cast<double>(p.steps_per_epoch) : p.epoch;
}
}  // namespace

ProgressPrinter::ProgressPrinter(std::vector<std::string> names, int64_t total_steps, int64_t log_every,
                                 bool enabled, bool terminal, bool every_record)
    : names_(std::move(names)),
      total_(total_steps),
      every_(log_every > 0 ? log_every : std::max<int64_t>(1, (total_steps + 9) / 10)),
      enabled_(enabled),
      terminal_(terminal),
      every_record_(every_record),
      sums_(names_.size(), 0.0) {}

void ProgressPrinter::update(const Progress& p) {
  if (!enabled_) {
    return;
  }
  for (const StepRecord& r : p.records) {
    for (size_t k = 0; k < sums_.size() && k < r.values.size(); ++k) {
      sums_[k] += r.values[k];
    }
    ++count_;
    if (!every_record_ && r.step % every_ != 0 && r.step != p.total_steps) {
      continue;
    }
    std::string line = fmt::format("step {:>{}}/{}  epoch {:.2f}", r.step, fmt::formatted_size("{}", total_),
                                   total_, epoch_of(r.step, p));
    for (size_t k = 0; k < names_.size(); ++k) {
      line += fmt::format("  {} {:.4f}", names_[k], sums_[k] / static_cast<double>(count_));
    }
    line += fmt::format("  {:.0f} samples/s", p.samples_per_second);
    fmt::print("{}{}\n", bar_shown_ ? "\r\033[K" : "", line);
    bar_shown_ = false;
    std::fill(sums_.begin(), sums_.end(), 0.0);
    count_ = 0;
  }
  if (terminal_) {
    draw_bar(p);
  }
  std::fflush(stdout);
}

void ProgressPrinter::draw_bar(const Progress& p) {
  constexpr int kWidth = 30;
  const double frac = total_ > 0 ? static_cast<double>(p.step) / static_cast<double>(total_) : 1.0;
  const int filled = static_cast<int>(frac * kWidth);
  fmt::print("\r\033[K[{}{}] {:3.0f}%  step {}/{}  {:.0f} samples/s", std::string(static_cast<size_t>(filled), '#'),
             std::string(static_cast<size_t>(kWidth - filled), '.'), frac * 100, p.step, total_,
             p.samples_per_second);
  bar_shown_ = true;
}

void ProgressPrinter::finish() {
  if (bar_shown_) {
    fmt::print("\r\033[K");
    bar_shown_ = false;
  }
  std::fflush(stdout);
}

}  // namespace iputrain::cli

#include "cli/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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
  if (!p.records.empty() && !p.records.back().values.empty()) {
    last_value_ = p.records.back().values.front();
    has_value_ = true;
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
  if (!validation_names_.empty()) {
    for (const ValidationRecord& v : p.validations) {
      fmt::print("{}{}\n", bar_shown_ ? "\r\033[K" : "", validation_text(v, validation_names_));
      bar_shown_ = false;
    }
  }
  if (terminal_) {
    draw_bar(p);
  }
  std::fflush(stdout);
}

std::string bar_text(int64_t step, int64_t total, double eta_seconds, const std::string& name, double value,
                     bool has_value, double samples_per_second) {
  constexpr int kWidth = 30;
  const double frac = total > 0 ? std::clamp(static_cast<double>(step) / static_cast<double>(total), 0.0, 1.0) : 1.0;
  const int filled = static_cast<int>(frac * kWidth);
  std::string eta = "?";
  if (eta_seconds >= 0) {
    const auto secs = static_cast<int64_t>(std::llround(eta_seconds));
    eta = secs >= 3600 ? fmt::format("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
                       : fmt::format("{}:{:02}", secs / 60, secs % 60);
  }
  std::string out = fmt::format("[{}{}] {:3.0f}%  step {}/{}  ETA {}", std::string(static_cast<size_t>(filled), '#'),
                                std::string(static_cast<size_t>(kWidth - filled), '.'), frac * 100, step, total, eta);
  if (has_value) {
    out += fmt::format("  {} {:.4f}", name, value);
  }
  return out + fmt::format("  {:.0f} samples/s", samples_per_second);
}

std::string validation_text(const ValidationRecord& v, const std::vector<std::string>& names) {
  std::string out = fmt::format("validation at step {} (epoch {:.2f}):", v.step, v.epoch);
  for (size_t k = 0; k < names.size() && k < v.values.size(); ++k) {
    out += fmt::format("  {} {:.4f}", names[k], v.values[k]);
  }
  return out;
}

void ProgressPrinter::draw_bar(const Progress& p) {
  const int64_t done = p.step - first_step_;
  const double eta = done > 0 ? p.elapsed_seconds / static_cast<double>(done) * static_cast<double>(total_ - p.step) : -1;
  fmt::print("\r\033[K{}", bar_text(p.step, total_, eta, names_.empty() ? std::string() : names_.front(), last_value_,
                                    has_value_ && !names_.empty(), p.samples_per_second));
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

#include "cli/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace iputrain::cli {

namespace {
double epoch_of(int64_t step, const Progress& p) {
  return p.steps_per_epoch > 0 ? static_cast<double>(step) / static_cast<double>(p.steps_per_epoch) : p.epoch;
}

// JSON has no NaN or infinity: such a value is written as null.
nlohmann::ordered_json number(double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nullptr; }
}  // namespace

std::string metrics_text(const std::vector<std::string>& names, const std::vector<double>& values) {
  std::string out;
  for (size_t k = 0; k < names.size() && k < values.size(); ++k) {
    out += fmt::format("  {} {:.4f}", names[k], values[k]);
  }
  return out;
}

nlohmann::ordered_json metrics_json(const std::vector<std::string>& names, const std::vector<double>& values) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (size_t k = 0; k < names.size() && k < values.size(); ++k) {
    j[names[k]] = number(values[k]);
  }
  return j;
}

std::string learning_rate_text(double lr) { return fmt::format("{:.4g}", lr); }

double learning_rate_value(double lr) { return std::stod(fmt::format("{}", static_cast<float>(lr))); }

std::string eta_text(double seconds) {
  if (seconds < 0) {
    return "?";
  }
  const auto secs = static_cast<int64_t>(std::llround(seconds));
  return secs >= 3600 ? fmt::format("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
                      : fmt::format("{}:{:02}", secs / 60, secs % 60);
}

std::string step_text(const StepLine& s) {
  std::string line =
      fmt::format("step {:>{}}/{}  epoch {:.2f}", s.step, fmt::formatted_size("{}", s.total), s.total, s.epoch);
  line += metrics_text(s.names, s.values);
  line += fmt::format("  lr {}  {:.0f} samples/s", learning_rate_text(s.learning_rate), s.samples_per_second);
  // Piped logs have no bar: the ETA is on every line but the last.
  if (s.step < s.total) {
    line += "  ETA " + eta_text(s.eta_seconds);
  }
  return line;
}

nlohmann::ordered_json step_json(const StepLine& s) {
  nlohmann::ordered_json j;
  j["event"] = "step";
  j["step"] = s.step;
  j["steps"] = s.total;
  j["epoch"] = s.epoch;
  j["metrics"] = metrics_json(s.names, s.values);
  j["learning_rate"] = learning_rate_value(s.learning_rate);
  j["samples_per_second"] = s.samples_per_second;
  j["elapsed_seconds"] = s.elapsed_seconds;
  j["eta_seconds"] = s.eta_seconds >= 0 ? nlohmann::ordered_json(s.eta_seconds) : nullptr;
  return j;
}

ProgressPrinter::ProgressPrinter(std::vector<std::string> names, int64_t total_steps, int64_t log_every, bool enabled,
                                 bool terminal, bool every_record)
    : names_(std::move(names)),
      total_(total_steps),
      enabled_(enabled),
      terminal_(terminal),
      window_(names_.size(), log_every > 0 ? log_every : std::max<int64_t>(1, (total_steps + 9) / 10), every_record) {}

bool WindowMeans::add(const StepRecord& r, int64_t total_steps) {
  if (closed_) {
    std::fill(sums_.begin(), sums_.end(), 0.0);
    count_ = 0;
    closed_ = false;
  }
  for (size_t k = 0; k < sums_.size() && k < r.values.size(); ++k) {
    sums_[k] += r.values[k];
  }
  first_ = count_ == 0 ? r.step : first_;
  last_ = r.step;
  ++count_;
  return every_record_ || r.step % every_ == 0 || r.step == total_steps;
}

std::vector<double> WindowMeans::means() const {
  std::vector<double> out;
  for (double sum : sums_) {
    out.push_back(count_ > 0 ? sum / static_cast<double>(count_) : 0.0);
  }
  return out;
}

void ProgressPrinter::print_step(const StepRecord& r, const Progress& p, bool json) {
  StepLine s{r.step,
             total_,
             epoch_of(r.step, p),
             names_,
             window_.means(),
             r.learning_rate,
             p.samples_per_second,
             p.elapsed_seconds,
             eta_seconds(p, std::max(r.step, p.step))};
  // The rate since the previous line, over the device executions alone (a line inside an
  // execution has only that execution's).
  if (p.samples > line_samples_ && p.train_seconds > line_seconds_) {
    s.samples_per_second = static_cast<double>(p.samples - line_samples_) / (p.train_seconds - line_seconds_);
    line_samples_ = p.samples;
    line_seconds_ = p.train_seconds;
  }
  fmt::print("{}{}\n", bar_shown_ ? "\r\033[K" : "", json ? step_json(s).dump() : step_text(s));
  bar_shown_ = false;
}

double ProgressPrinter::eta_seconds(const Progress& p, int64_t step) const {
  const int64_t done = p.step - first_step_;
  if (done <= 0) {
    return -1;
  }
  return p.elapsed_seconds / static_cast<double>(done) * static_cast<double>(std::max<int64_t>(0, total_ - step));
}

void ProgressPrinter::update(const Progress& p) {
  // The windows are kept also when nothing is printed (--quiet): the summary reports the last.
  const bool json = format_ == LogFormat::Json;
  for (const StepRecord& r : p.records) {
    if (!window_.add(r, p.total_steps)) {
      continue;
    }
    if (enabled_) {
      print_step(r, p, json);
    }
    window_.close();
  }
  if (!enabled_) {
    return;
  }
  if (!p.records.empty() && !p.records.back().values.empty()) {
    last_value_ = p.records.back().values.front();
    has_value_ = true;
  }
  if (!validation_names_.empty()) {
    for (const ValidationRecord& v : p.validations) {
      fmt::print("{}{}\n", bar_shown_ ? "\r\033[K" : "",
                 json ? validation_json(v, validation_names_).dump() : validation_text(v, validation_names_));
      bar_shown_ = false;
    }
  }
  if (terminal_ && !json) {
    draw_bar(p);
  }
  std::fflush(stdout);
}

std::string bar_text(int64_t step, int64_t total, double eta_seconds, const std::string& name, double value,
                     bool has_value, double samples_per_second) {
  constexpr int kWidth = 30;
  const double frac = total > 0 ? std::clamp(static_cast<double>(step) / static_cast<double>(total), 0.0, 1.0) : 1.0;
  const int filled = static_cast<int>(frac * kWidth);
  std::string out = fmt::format("[{}{}] {:3.0f}%  step {}/{}  ETA {}", std::string(static_cast<size_t>(filled), '#'),
                                std::string(static_cast<size_t>(kWidth - filled), '.'), frac * 100, step, total,
                                eta_text(eta_seconds));
  if (has_value) {
    out += fmt::format("  {} {:.4f}", name, value);
  }
  return out + fmt::format("  {:.0f} samples/s", samples_per_second);
}

std::string validation_text(const ValidationRecord& v, const std::vector<std::string>& names) {
  return fmt::format("validation at step {} (epoch {:.2f}):", v.step, v.epoch) + metrics_text(names, v.values);
}

nlohmann::ordered_json validation_json(const ValidationRecord& v, const std::vector<std::string>& names) {
  nlohmann::ordered_json j;
  j["event"] = "validation";
  j["step"] = v.step;
  j["epoch"] = v.epoch;
  j["metrics"] = metrics_json(names, v.values);
  return j;
}

void ProgressPrinter::draw_bar(const Progress& p) {
  fmt::print("\r\033[K{}",
             bar_text(p.step, total_, eta_seconds(p, p.step), names_.empty() ? std::string() : names_.front(),
                      last_value_, has_value_ && !names_.empty(), p.samples_per_second));
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

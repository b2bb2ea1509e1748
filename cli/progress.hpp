// Training output: a log line every N steps (the mean of each output since the last line) and,
// on a terminal, a progress bar redrawn in place; or, with `--log-format json`, one JSON object
// per line for tools (docs/training.md lists the fields).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "iputrain/session.hpp"

namespace iputrain::cli {

//! How `train` writes its log: lines for people, or one JSON object per line for tools.
enum class LogFormat { Text, Json };

//! One logged step: the means of the outputs since the previous line, the learning rate of the
//! step, the throughput of the device executions since the previous line (validation and
//! checkpoints left out) and the estimated time to the end (negative: unknown or done).
struct StepLine {
  int64_t step = 0;
  int64_t total = 0;
  double epoch = 0;
  std::vector<std::string> names;
  std::vector<double> values;
  double learning_rate = 0;
  double samples_per_second = 0;
  double elapsed_seconds = 0;
  double eta_seconds = -1;
};

//! "step  40/400  epoch 0.50  loss 0.4321  accuracy 0.8800  lr 0.001  51234 samples/s  ETA 0:12"
std::string step_text(const StepLine& s);
//! {"event": "step", "step": 40, "steps": 400, "epoch": 0.5, "metrics": {...}, "learning_rate": ...}
nlohmann::ordered_json step_json(const StepLine& s);
//! "  loss 0.4321  accuracy 0.8800": every value in the given (the model's output) order.
std::string metrics_text(const std::vector<std::string>& names, const std::vector<double>& values);
//! {"loss": 0.4321, "accuracy": 0.88} in the given order (NaN and infinities become null).
nlohmann::ordered_json metrics_json(const std::vector<std::string>& names, const std::vector<double>& values);
//! The learning rate as the log shows it: 4 significant digits ("0.001", "3.75e-05").
std::string learning_rate_text(double lr);
//! The learning rate for JSON: the f32 the update applied, as its shortest decimal (0.08, not 0.0799999982).
double learning_rate_value(double lr);
//! m:ss, or h:mm:ss past an hour; "?" for a negative (unknown) time.
std::string eta_text(double seconds);

//! The progress bar's text (Keras-like): bar, percent, step, ETA (m:ss, h:mm:ss past an hour; "?"
//! before the first step), the running value of the first output, throughput.
std::string bar_text(int64_t step, int64_t total, double eta_seconds, const std::string& name, double value,
                     bool has_value, double samples_per_second);
//! "validation at step 40 (epoch 2.00):  val_loss 0.3100  val_accuracy 0.8800"
std::string validation_text(const ValidationRecord& v, const std::vector<std::string>& names);
//! {"event": "validation", "step": 40, "epoch": 2.0, "metrics": {"val_loss": 0.31, ...}}
nlohmann::ordered_json validation_json(const ValidationRecord& v, const std::vector<std::string>& names);

//! The means of the outputs over one window of steps, as a log line shows them: the window closes
//! at a step the log prints (every `every` steps and the run's last, or each record given with
//! `every_record`). The summary reports the newest window's means, so its figures are the log's.
class WindowMeans {
 public:
  WindowMeans(size_t outputs, int64_t every, bool every_record = false)
      : sums_(outputs, 0.0), every_(every), every_record_(every_record) {}
  //! Adds one step's record (a closed window is then replaced by a new one); true when it closes
  //! the window (a log line is due).
  bool add(const StepRecord& r, int64_t total_steps);
  //! The newest window with steps in it, closed or not: its means and its first and last step.
  std::vector<double> means() const;
  int64_t first_step() const { return first_; }
  int64_t last_step() const { return last_; }
  //! Ends the window (after its line was printed); it stays readable until the next add().
  void close() { closed_ = true; }

 private:
  std::vector<double> sums_;
  int64_t count_ = 0;
  int64_t first_ = 0, last_ = 0;
  int64_t every_;
  bool every_record_;
  bool closed_ = false;
};

class ProgressPrinter {
 public:
  //! `log_every` = 0 picks about ten lines per run.
  //! `every_record`: print each record given (the outfeed's `last` mode gives one per execution).
  ProgressPrinter(std::vector<std::string> names, int64_t total_steps, int64_t log_every, bool enabled,
                  bool terminal, bool every_record = false);
  void update(const Progress& p);
  //! Names of the validation values (Session::validation_names()): validations are printed.
  void set_validation_names(std::vector<std::string> names) { validation_names_ = std::move(names); }
  //! The steps done before this run (a resumed run's checkpoint step), for the ETA.
  void set_first_step(int64_t step) { first_step_ = step; }
  //! JSON lines instead of text (and never a bar).
  void set_format(LogFormat format) { format_ = format; }
  //! Clears the bar.
  void finish();
  //! The log's windows (kept also when the printer prints nothing: --quiet).
  const WindowMeans& window() const { return window_; }

 private:
  void draw_bar(const Progress& p);
  //! One step line: the window's means, the rate since the previous line, the ETA.
  void print_step(const StepRecord& r, const Progress& p, bool json);
  double eta_seconds(const Progress& p, int64_t step) const;

  std::vector<std::string> names_;
  int64_t total_;
  bool enabled_;
  bool terminal_;
  LogFormat format_ = LogFormat::Text;
  bool bar_shown_ = false;
  WindowMeans window_;
  std::vector<std::string> validation_names_;
  int64_t first_step_ = 0;     // the step count before this run's first update (for the ETA)
  double last_value_ = 0;      // the newest record's first value (the bar's running loss)
  bool has_value_ = false;
  int64_t line_samples_ = 0;  // Progress::samples and train_seconds at the previous line (its rate)
  double line_seconds_ = 0;
};

}  // namespace iputrain::cli

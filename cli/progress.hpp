// Training output: a log line every N steps (the mean of each output since the last line) and,
// on a terminal, a progress bar redrawn in place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iputrain/session.hpp"

namespace iputrain::cli {

//! The progress bar's text (Keras-like): bar, percent, step, ETA (m:ss, h:mm:ss past an hour; "?"
//! before the first step), the running value of the first output, throughput.
std::string bar_text(int64_t step, int64_t total, double eta_seconds, const std::string& name, double value,
                     bool has_value, double samples_per_second);
//! "validation at step 40 (epoch 2.00): val_loss 0.3100  val_accuracy 0.8800"
std::string validation_text(const ValidationRecord& v, const std::vector<std::string>& names);

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
  //! Clears the bar.
  void finish();

 private:
  void draw_bar(const Progress& p);

  std::vector<std::string> names_;
  int64_t total_;
  int64_t every_;
  bool enabled_;
  bool terminal_;
  bool every_record_;
  bool bar_shown_ = false;
  std::vector<double> sums_;
  int64_t count_ = 0;
  std::vector<std::string> validation_names_;
  int64_t first_step_ = 0;     // the step count before this run's first update (for the ETA)
  double last_value_ = 0;      // the newest record's first value (the bar's running loss)
  bool has_value_ = false;
};

}  // namespace iputrain::cli

// Training output: a log line every N steps (the mean of each output since the last line) and,
// on a terminal, a progress bar redrawn in place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iputrain/session.hpp"

namespace iputrain::cli {

class ProgressPrinter {
 public:
  //! `log_every` = 0 picks about ten lines per run.
  //! `every_record`: print each record given (the outfeed's `last` mode gives one per execution).
  ProgressPrinter(std::vector<std::string> names, int64_t total_steps, int64_t log_every, bool enabled,
                  bool terminal, bool every_record = false);
  void update(const Progress& p);
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
};

}  // namespace iputrain::cli

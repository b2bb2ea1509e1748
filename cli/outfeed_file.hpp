// `iputrain train --outfeed FILE`: what the outfeed queue held, step by step, as a file, and the
// values the step log shows. The queue holds what the config says (training.outfeed_mode,
// pipeline.accumulate_outfeed, outfeed_loss, outfeed_mask); this turns each execution's elements
// into rows (and per-step means for the log) without keeping the run in memory: rows are streamed
// to a temporary file and the result is renamed into place at the end.
//
//   FILE.csv   a header `step,micro_batch,replica,learning_rate,NAME…` (NAME[i], NAME[i,j] per
//              element of a non-scalar value), then one row per element and replica; micro_batch is
//              the index within the step, `sum` for an accumulated element; learning_rate is the
//              rate the step's update applied.
//   FILE.npy   one array per value, FILE's stem + ".NAME.npy": [elements, (replicas,) ...shape]
//              float32, the rows in step order; and FILE's stem + ".learning_rate.npy": [elements]
//              float32, each element's step's learning rate.
//   validation (data.validation): FILE's stem + ".validation.csv" beside it, a header
//              `step,epoch,val_NAME…` and one row per validation.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "iputrain/session.hpp"

namespace iputrain::cli {

class OutfeedFile {
 public:
  //! `path` "" records nothing to disk; otherwise it must end in .csv or .npy (Error(Usage)).
  OutfeedFile(std::string path, OutfeedLayout layout);
  ~OutfeedFile();
  OutfeedFile(const OutfeedFile&) = delete;
  OutfeedFile& operator=(const OutfeedFile&) = delete;

  //! One execution's outfeed, which covered the steps of `steps` (Progress::records: their numbers
  //! and learning rates). Returns a record per step the outfeed has elements of, with each value's
  //! mean over them and the step's learning rate (the log).
  std::vector<StepRecord> add(const std::vector<OutfeedTensor>& tensors, const std::vector<StepRecord>& steps);
  //! A validation during training: a row of the validation table.
  void add_validation(const ValidationRecord& v, const std::vector<std::string>& names);
  //! Writes the file(s) in place, atomically; returns what was written ("" if nothing).
  std::string finish();

  const OutfeedLayout& layout() const { return layout_; }

 private:
  struct Spool;
  std::string path_;
  bool csv_ = false;
  OutfeedLayout layout_;
  std::vector<std::vector<int64_t>> shapes_;  // per value: its per-replica element shape
  std::vector<std::unique_ptr<Spool>> spools_;  // csv: one; npy: one per value, then the learning rates
  int64_t rows_ = 0;                            // elements written (npy first dimension)
  std::string validation_;                      // the validation table so far ("" = none)
};

}  // namespace iputrain::cli

// iputrain — what a weight file or a checkpoint holds, read from its header alone: each tensor's
// name, dtype and shape, and the metadata the file records (`iputrain inspect`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace iputrain {

//! One tensor of a weight file, as stored.
struct StoredTensor {
  std::string name;
  std::string dtype;  //!< as the file writes it: "F32", "BF16", "I32", "U8", …
  std::vector<int64_t> shape;
  uint64_t bytes = 0;            //!< its bytes in the file
  bool optimizer_state = false;  //!< a checkpoint's optimizer state array (`optimizer/<slot>/<parameter>`)
};

//! What a weight file or a checkpoint holds.
struct WeightFileContents {
  std::string path;                             //!< the file read (a directory's newest checkpoint)
  bool checkpoint = false;                      //!< a checkpoint, what --resume reads; else a weight file
  uint64_t file_bytes = 0;                      //!< the file's size
  std::map<std::string, std::string> metadata;  //!< the file's "__metadata__" (step, model, seeds, …)
  std::vector<StoredTensor> tensors;            //!< sorted by name
};

//! Reads the header of a safetensors weight file or checkpoint file, or of the newest checkpoint
//! of a checkpoint directory (the file `--resume` reads), checked as the readers check it: every
//! tensor's byte range fits its dtype and shape and the ranges cover the data. Throws Error(Usage)
//! if the path does not exist, Error(Io) if it cannot be read, Error(Data) naming the file if it
//! is not safetensors, is truncated or damaged, or if a directory holds no checkpoint.
WeightFileContents read_weight_file_contents(const std::string& dir_or_file);

}  // namespace iputrain

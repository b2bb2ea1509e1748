// A structure-aware generator of model programs for the `program` fuzz target (issue 30): the
// fuzzer's bytes are read as decisions (which op, which attribute, how many stages), never as
// text, so nearly every input is a well-formed program that reaches the elaborator, the planner and
// the engine. A valid program has inputs of random shapes and dtypes, primitive ops, stdlib layers
// with attributes in range, stage and parallel blocks, `for`, `if`, `def`s, `layer`s and `assert`s,
// and ends in a scalar loss that every parameter feeds. A near-valid program is a valid one with
// exactly one wrong shape or attribute, which must be refused with a located error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace iputrain::fuzz {

//! The fuzzer's bytes as a stream of decisions (as libFuzzer's FuzzedDataProvider, from the
//! front): every read past the end gives 0, so a short input is the smallest program.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  //! A number in [lo, hi] (inclusive); lo when hi <= lo.
  int64_t range(int64_t lo, int64_t hi) {
    if (hi <= lo) {
      return lo;
    }
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    const uint64_t raw = span > 256 ? (uint64_t{byte()} << 8 | byte()) : byte();
    return lo + static_cast<int64_t>(raw % span);
  }
  bool coin() { return (byte() & 1) != 0; }
  //! An index into a list of n choices.
  size_t pick(size_t n) { return n == 0 ? 0 : static_cast<size_t>(range(0, static_cast<int64_t>(n) - 1)); }
  bool exhausted() const { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

//! One model input: its dtype and per-sample shape, and for i32 inputs the exclusive bound of the
//! values the data must hold (ids below the vocabulary, labels below the classes).
struct GeneratedInput {
  std::string name;
  std::string dtype;
  std::vector<int64_t> sample_shape;
  int64_t bound = 0;
};

struct GeneratedProgram {
  std::string text;
  int64_t batch = 1;
  std::vector<GeneratedInput> inputs;
  //! The model's stages in declaration order (empty: no stage blocks, one stage `main`).
  std::vector<std::string> stages;
  //! Pipeline positions (one `device_mapping` entry each): a stage, or a parallel block's stages.
  std::vector<std::vector<std::string>> positions;
  //! Chooses the config's optimizer, and on 2 IPUs the schedule and recomputation (program_config).
  uint8_t config_variant = 0;
  //! Near-valid: what was made wrong (empty for a valid program).
  std::string mutation;
  //! The constructs and ops used, for IPUTRAIN_FUZZ_VERBOSE and the corpus's coverage.
  std::vector<std::string> used;
};

//! Generates a program from `in`; `near_valid` makes exactly one shape or attribute wrong.
GeneratedProgram generate_program(ByteReader& in, bool near_valid);

//! A config that trains `p` for one step on `ipus` IPUs (1: every stage on the one IPU; 2: two
//! replicas of a one-stage model, or the stages split over the two IPUs in order).
std::string program_config(const GeneratedProgram& p, int ipus);

}  // namespace iputrain::fuzz

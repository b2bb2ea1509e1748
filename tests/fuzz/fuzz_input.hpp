// Shared by the fuzz harnesses (tests/fuzz/*_fuzz.cpp): a private scratch folder for readers that
// take paths, and the rule every harness applies: iputrain::Error is the expected answer to bad
// input; anything else (another exception, a crash, a sanitizer report) is a bug.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "iputrain/error.hpp"

namespace iputrain::fuzz {

//! A folder of this process's own, emptied between inputs by clear_scratch(); removed at exit.
const std::string& scratch_dir();
//! Removes everything inside scratch_dir().
void clear_scratch();
//! Writes `bytes` to scratch_dir()/name (creating folders on the way); returns the path.
std::string write_scratch(const std::string& name, std::string_view bytes);

//! True when IPUTRAIN_FUZZ_VERBOSE is set: expect_diagnosed prints the errors it catches (to see
//! which seeds are valid inputs).
bool verbose();

//! Splits a fuzz input: the first byte (0 when empty) chooses a variant, the rest is the payload.
struct Input {
  uint8_t selector = 0;
  std::string_view payload;
};
Input split_input(const uint8_t* data, size_t size);
//! The non-empty lines of a fuzz input (split at '\n').
std::vector<std::string> lines_of(const uint8_t* data, size_t size);

//! Cuts `payload` in two at a position chosen by its first two bytes (which are dropped).
std::pair<std::string_view, std::string_view> cut_in_two(std::string_view payload);

//! Runs f(); returns normally if it returns or throws iputrain::Error (a diagnosed bad input), and
//! lets every other exception through, Error(Internal) included, which the fuzzer (or the replay)
//! reports as a crash.
template <typename F>
void expect_diagnosed(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Internal) {
      throw;
    }
    if (verbose()) {
      std::fprintf(stderr, "diagnosed: %s\n", e.what());
    }
  }
}

}  // namespace iputrain::fuzz

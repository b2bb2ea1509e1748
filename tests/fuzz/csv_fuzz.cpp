// Fuzz target: CSV files (open_csv: header, quoting, numbers, columns per input), read for the
// model inputs the selector chooses.
#include "fuzz_input.hpp"
#include "read_samples.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iputrain;
  const fuzz::Input in = fuzz::split_input(data, size);
  fuzz::clear_scratch();
  const std::string path = fuzz::write_scratch("data.csv", in.payload);
  fuzz::expect_diagnosed([&] { fuzz::read_samples(*data::open_csv(path, fuzz::wanted_fields(in.selector))); });
  return 0;
}

// Fuzz target: NumPy .npy files (open_npy): the payload is cut into x.npy and label.npy, read for
// the model inputs the selector chooses.
#include "fuzz_input.hpp"
#include "read_samples.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iputrain;
  const fuzz::Input in = fuzz::split_input(data, size);
  const auto [x, label] = fuzz::cut_in_two(in.payload);
  fuzz::clear_scratch();
  fuzz::write_scratch("npy/x.npy", x);
  fuzz::write_scratch("npy/label.npy", label);
  fuzz::expect_diagnosed(
      [&] { fuzz::read_samples(*data::open_npy(fuzz::scratch_dir() + "/npy", fuzz::wanted_fields(in.selector))); });
  return 0;
}

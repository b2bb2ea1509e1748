// Fuzz target: a text source (open_text): character windows of the payload, of a length the
// selector chooses (0 included: a model without such an input).
#include "fuzz_input.hpp"
#include "read_samples.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iputrain;
  const fuzz::Input in = fuzz::split_input(data, size);
  fuzz::clear_scratch();
  const std::string path = fuzz::write_scratch("text.txt", in.payload);
  const int64_t seq = in.selector % 17;
  std::vector<data::Field> wanted;
  if (seq > 0) {
    wanted = {data::Field{"tokens", DType::I32, {seq}}, data::Field{"targets", DType::I32, {seq}}};
  }
  fuzz::expect_diagnosed([&] { fuzz::read_samples(*data::open_text(path, wanted)); });
  return 0;
}

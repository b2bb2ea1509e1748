// Fuzz target: image folders (open_images: PNG through libpng, JPEG through libjpeg-turbo, the
// conversions and the bilinear resize): the payload is cut into a .png of class `a` and a .jpg of
// class `b`; the selector chooses grey or RGB inputs, their size and the resize option.
#include "fuzz_input.hpp"
#include "read_samples.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iputrain;
  const fuzz::Input in = fuzz::split_input(data, size);
  const auto [png, jpg] = fuzz::cut_in_two(in.payload);
  fuzz::clear_scratch();
  fuzz::write_scratch("images/a/one.png", png);
  fuzz::write_scratch("images/b/two.jpg", jpg);
  const int64_t side = 1 + in.selector % 8;
  Shape shape{side, side};
  if (in.selector & 8) {
    shape.push_back((in.selector & 16) ? 3 : 1);
  }
  const std::vector<data::Field> wanted{data::Field{"image", DType::F32, shape},
                                        data::Field{"label", DType::I32, {}}};
  const std::string option = (in.selector & 32) ? "resize=bilinear" : (in.selector & 64) ? "resize=nearest" : "";
  fuzz::expect_diagnosed(
      [&] { fuzz::read_samples(*data::open_images(fuzz::scratch_dir() + "/images", option, wanted)); });
  return 0;
}

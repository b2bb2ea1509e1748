// "images:DIR": class folders of PNG and JPEG files, decoded by libpng and libjpeg on read.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/data/dataset.hpp"
#include "error_text.hpp"
#include "image_writer.hpp"
#include "temp_dir.hpp"

namespace iputrain {
namespace {

using test::error_of;

// Two classes ("cat" sorts before "dog"): 2 x 3 images of one colour each.
void write_folder(const test::TempDir& dir) {
  std::filesystem::create_directories(dir.path() / "dog");
  std::filesystem::create_directories(dir.path() / "cat");
  std::filesystem::create_directories(dir.path() / "empty_class");
  std::vector<uint8_t> rgb;
  for (int i = 0; i < 6; ++i) {
    for (uint8_t v : {200, 100, 50}) {
      rgb.push_back(v);
    }
  }
  test::write_png(dir / "dog/a.png", 3, 2, 3, rgb);
  std::vector<uint8_t> grey = {0, 10, 20, 30, 40, 250};
  test::write_png(dir / "cat/b.PNG", 3, 2, 1, grey);
  std::vector<uint8_t> ga = {7, 255, 8, 0, 9, 128, 10, 255, 11, 255, 12, 255};
  test::write_png(dir / "cat/c.png", 3, 2, 2, ga);
  std::ofstream(dir / "cat/notes.txt") << "not an image";
}

template <size_t N>
std::array<float, N> image(const data::Dataset& ds, int64_t i) {
  std::array<float, N> out{};
  REQUIRE(ds.fields()[0].bytes() == N * 4);
  ds.read(i, 0, out.data());
  return out;
}

TEST_CASE("images: grey and RGB into [H, W], [H, W, 1] and [H, W, 3], labels from sorted folders") {
  test::TempDir dir("images_read");
  write_folder(dir);
  const std::string spec = "images:" + dir.path().string();
  auto grey = data::open_dataset(spec, "", {{"image", DType::F32, {2, 3}}, {"label", DType::I32, {}}}, 0);
  REQUIRE(grey->size() == 3);
  CHECK(grey->class_names() == std::vector<std::string>{"cat", "dog", "empty_class"});
  // Sorted: cat/b.PNG, cat/c.png, dog/a.png; pixels stay 0..255, alpha is dropped.
  CHECK(image<6>(*grey, 0) == std::array<float, 6>{0, 10, 20, 30, 40, 250});
  CHECK(image<6>(*grey, 1) == std::array<float, 6>{7, 8, 9, 10, 11, 12});
  const float luma = 0.299f * 200 + 0.587f * 100 + 0.114f * 50;
  CHECK(image<6>(*grey, 2)[5] == doctest::Approx(luma));
  int32_t label = -1;
  grey->read(0, 1, &label);
  CHECK(label == 0);
  grey->read(2, 1, &label);
  CHECK(label == 1);

  auto rgb = data::open_dataset(spec, "", {{"label", DType::I32, {}}, {"pic", DType::F32, {2, 3, 3}}}, 0);
  const auto px = image<18>(*rgb, 2);
  CHECK(px[0] == 200);
  CHECK(px[1] == 100);
  CHECK(px[17] == 50);
  CHECK(image<18>(*rgb, 0)[15] == 250);  // grey repeated in R, G and B
  CHECK(image<18>(*rgb, 0)[17] == 250);
  auto one = data::open_dataset(spec, "", {{"pic", DType::F32, {2, 3, 1}}, {"label", DType::I32, {}}}, 0);
  CHECK(image<6>(*one, 2)[0] == doctest::Approx(luma));
}

TEST_CASE("images: a u8 image input gets the decoded bytes, and a blended grey is rounded to nearest") {
  test::TempDir dir("images_u8");
  write_folder(dir);
  const std::string spec = "images:" + dir.path().string();
  auto rgb = data::open_dataset(spec, "", {{"image", DType::U8, {2, 3, 3}}, {"label", DType::I32, {}}}, 0);
  REQUIRE(rgb->fields()[0].bytes() == 18);  // one byte a channel
  std::array<uint8_t, 18> px{};
  rgb->read(2, 0, px.data());
  CHECK(px[0] == 200);
  CHECK(px[1] == 100);
  CHECK(px[17] == 50);
  rgb->read(0, 0, px.data());
  CHECK(px[15] == 250);  // grey repeated in R, G and B
  auto grey = data::open_dataset(spec, "", {{"image", DType::U8, {2, 3}}, {"label", DType::I32, {}}}, 0);
  std::array<uint8_t, 6> g{};
  grey->read(2, 0, g.data());
  CHECK(g[5] == static_cast<uint8_t>(std::lround(0.299f * 200 + 0.587f * 100 + 0.114f * 50)));  // 124.2 -> 124
  grey->read(0, 0, g.data());
  CHECK(g == std::array<uint8_t, 6>{0, 10, 20, 30, 40, 250});
}

TEST_CASE("images: a size other than the model's is an error unless the spec resizes") {
  test::TempDir dir("images_size");
  write_folder(dir);
  const std::string spec = "images:" + dir.path().string();
  auto e = error_of([&] {
    (void)data::open_dataset(spec, "", {{"image", DType::F32, {4, 4}}, {"label", DType::I32, {}}}, 0);
  });
  CHECK(e.kind == ErrorKind::Data);
  CHECK(e.message.find(
            "cat/b.PNG` is 2x3 (height x width) but the model's input `image: f32[4, 4]` takes 4x4") !=
        std::string::npos);
  CHECK(e.hint.find("resize=bilinear") != std::string::npos);
  for (const char* mode : {",resize=bilinear", ",resize=nearest"}) {
    CAPTURE(mode);
    auto ds =
        data::open_dataset(spec + mode, "", {{"image", DType::F32, {4, 4, 3}}, {"label", DType::I32, {}}}, 0);
    const auto px = image<48>(*ds, 2);  // a one-colour image stays that colour
    CHECK(px[0] == doctest::Approx(200));
    CHECK(px[46] == doctest::Approx(100));
    // cat/b.PNG: its corners survive, the middle is in between.
    const auto g = image<48>(*ds, 0);
    CHECK(g[0] == doctest::Approx(0));
    CHECK(g[47] == doctest::Approx(250));
  }
  auto bad_option = error_of([&] {
    (void)data::open_dataset(spec + ",resize=cubic", "", {{"image", DType::F32, {4, 4}}}, 0);
  });
  CHECK(bad_option.message.find("unknown option `resize=cubic`") != std::string::npos);
}

TEST_CASE("images: JPEG files decode through libjpeg") {
  test::TempDir dir("images_jpeg");
  std::filesystem::create_directories(dir.path() / "a");
  std::vector<uint8_t> rgb;
  for (int i = 0; i < 64; ++i) {
    for (uint8_t v : {30, 140, 220}) {
      rgb.push_back(v);
    }
  }
  test::write_jpeg(dir / "a/x.jpg", 8, 8, 3, rgb);
  test::write_jpeg(dir / "a/y.jpeg", 8, 8, 1, std::vector<uint8_t>(64, 90));
  auto ds = data::open_dataset("images:" + dir.path().string(), "",
                               {{"image", DType::F32, {8, 8, 3}}, {"label", DType::I32, {}}}, 0);
  const auto x = image<192>(*ds, 0);
  CHECK(std::fabs(x[0] - 30) <= 3);
  CHECK(std::fabs(x[1] - 140) <= 3);
  CHECK(std::fabs(x[191] - 220) <= 3);
  const auto y = image<192>(*ds, 1);
  CHECK(std::fabs(y[100] - 90) <= 2);
}

TEST_CASE("images: damaged files, empty folders and models without an image input are errors") {
  test::TempDir dir("images_bad");
  write_folder(dir);
  // Truncated inside the pixel data: the header reads (open succeeds), decoding fails on read.
  std::vector<uint8_t> noise(32 * 32);
  for (size_t i = 0; i < noise.size(); ++i) {
    noise[i] = static_cast<uint8_t>(i * 7919 % 251);
  }
  test::write_png(dir / "dog/big.png", 32, 32, 1, noise);
  const std::string spec = "images:" + dir.path().string() + ",resize=nearest";
  std::filesystem::resize_file(dir / "dog/big.png", std::filesystem::file_size(dir / "dog/big.png") / 2);
  auto ds = data::open_dataset(spec, "", {{"image", DType::F32, {2, 3}}, {"label", DType::I32, {}}}, 0);
  std::array<float, 6> px{};
  auto cut = error_of([&] { ds->read(3, 0, px.data()); });
  CHECK(cut.kind == ErrorKind::Data);
  CHECK(cut.message.find("big.png` is a damaged PNG file") != std::string::npos);

  test::write_jpeg(dir / "dog/j.jpg", 16, 16, 1, std::vector<uint8_t>(256, 3));
  std::filesystem::resize_file(dir / "dog/j.jpg", 200);
  auto ds2 = data::open_dataset(spec, "", {{"image", DType::F32, {2, 3}}, {"label", DType::I32, {}}}, 0);
  auto jcut = error_of([&] { ds2->read(4, 0, px.data()); });
  CHECK(jcut.message.find("j.jpg` is a damaged JPEG file") != std::string::npos);

  std::filesystem::remove(dir / "dog/big.png");
  std::filesystem::remove(dir / "dog/j.jpg");
  std::ofstream(dir / "dog/fake.png") << "plain text";
  auto fake = error_of([&] {
    (void)data::open_dataset("images:" + dir.path().string(), "", {{"image", DType::F32, {2, 3}}}, 0);
  });
  CHECK(fake.message.find("fake.png` is neither a PNG nor a JPEG file") != std::string::npos);

  auto no_image = error_of([&] { (void)data::open_dataset(spec, "", {{"label", DType::I32, {}}}, 0); });
  CHECK(no_image.message.find("no image input") != std::string::npos);
  test::TempDir empty("images_empty");
  auto no_classes = error_of([&] { (void)data::open_dataset("images:" + empty.path().string(), "", {}, 0); });
  CHECK(no_classes.message.find("has no class folders") != std::string::npos);
}

TEST_CASE("images: reads from several threads at once decode the same pixels as one thread") {
  test::TempDir dir("images_threads");
  std::filesystem::create_directories(dir.path() / "a");
  for (int i = 0; i < 16; ++i) {
    std::vector<uint8_t> px(12 * 10 * 3);
    for (size_t k = 0; k < px.size(); ++k) {
      px[k] = static_cast<uint8_t>((k * 31 + static_cast<size_t>(i) * 17) % 256);
    }
    test::write_png(dir / ("a/" + std::to_string(100 + i) + ".png"), 10, 12, 3, px);
  }
  auto ds = data::open_dataset("images:" + dir.path().string() + ",resize=bilinear", "",
                               {{"image", DType::F32, {7, 9, 1}}, {"label", DType::I32, {}}}, 0);
  REQUIRE(ds->size() == 16);
  const size_t n = 7 * 9;
  std::vector<float> serial(16 * n);
  for (int64_t i = 0; i < 16; ++i) {
    ds->read(i, 0, serial.data() + static_cast<size_t>(i) * n);
  }
  std::vector<float> parallel(16 * n * 4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int64_t i = 0; i < 16; ++i) {
        ds->read(i, 0, parallel.data() + (t * 16 + static_cast<size_t>(i)) * n);
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  for (size_t t = 0; t < 4; ++t) {
    CHECK(std::equal(serial.begin(), serial.end(), parallel.begin() + static_cast<long>(t * 16 * n)));
  }
}

}  // namespace
}  // namespace iputrain

// "safetensors:FILE" as a data source: one tensor per input, first dimension the sample.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>

#include "core/data/dataset.hpp"
#include "core/data/safetensors.hpp"
#include "error_text.hpp"
#include "temp_dir.hpp"

namespace iputrain {
namespace {

using test::error_of;

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// A file with dtypes the weight writer does not produce: U8 pixels and F64 features.
void write_raw(const std::string& path) {
  const std::string header =
      R"({"pix":{"dtype":"U8","shape":[3,2],"data_offsets":[0,6]},"f":{"dtype":"F64","shape":[3],"data_offsets":[6,30]}})";
  std::ofstream out(path, std::ios::binary);
  const uint64_t n = header.size();
  out.write(reinterpret_cast<const char*>(&n), 8);
  out << header;
  const uint8_t pix[6] = {0, 255, 10, 20, 30, 40};
  out.write(reinterpret_cast<const char*>(pix), 6);
  const double f[3] = {0.5, -1.25, 3.0};
  out.write(reinterpret_cast<const char*>(f), sizeof f);
}

TEST_CASE("safetensors source: tensors map to inputs by name and convert") {
  test::TempDir dir("st_source");
  data::write_safetensors(
      dir / "d.safetensors",
      {{"x", DType::F32, {4, 3}, bytes_of(std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})},
       {"label", DType::I32, {4}, bytes_of(std::vector<int32_t>{3, 2, 1, 0})}});
  auto ds = data::open_dataset("safetensors:d.safetensors", dir.path().string(),
                               {{"x", DType::F32, {3}}, {"label", DType::I32, {}}}, 0);
  REQUIRE(ds->size() == 4);
  float x[3];
  int32_t label = 0;
  ds->read(2, 0, x);
  ds->read(3, 1, &label);
  CHECK(x[2] == 8.0f);
  CHECK(label == 0);

  write_raw(dir / "raw.safetensors");
  auto raw = data::open_dataset("safetensors:" + (dir / "raw.safetensors"), "",
                                {{"pix", DType::F32, {2}}, {"f", DType::F32, {}}}, 0);
  float pix[2];
  float f = 0;
  raw->read(0, 0, pix);
  raw->read(1, 1, &f);
  CHECK(pix[1] == 255.0f);
  CHECK(f == -1.25f);
}

TEST_CASE("safetensors source: mismatches, missing tensors and damaged files are errors") {
  test::TempDir dir("st_source_errors");
  write_raw(dir / "raw.safetensors");
  const std::string spec = "safetensors:" + (dir / "raw.safetensors");
  auto shape = error_of([&] { (void)data::open_dataset(spec, "", {{"pix", DType::F32, {3}}}, 0); });
  CHECK(shape.message.find("raw.safetensors:pix` holds u8[3, 2]") != std::string::npos);
  CHECK(shape.message.find("input `pix` is f32[3] per sample") != std::string::npos);
  auto to_int = error_of([&] { (void)data::open_dataset(spec, "", {{"f", DType::I32, {}}}, 0); });
  CHECK(to_int.message.find("stores f64 values but the model's input `f` is i32") != std::string::npos);
  auto missing = error_of([&] { (void)data::open_dataset(spec, "", {{"label", DType::I32, {}}}, 0); });
  CHECK(missing.message.find("has no tensor `label`") != std::string::npos);
  CHECK(missing.hint.find("holds f, pix") != std::string::npos);

  std::ifstream in(dir / "raw.safetensors", std::ios::binary);
  std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(dir / "cut.safetensors", std::ios::binary) << whole.substr(0, whole.size() - 5);
  auto cut = error_of([&] {
    (void)data::open_dataset("safetensors:" + (dir / "cut.safetensors"), "", {{"pix", DType::F32, {2}}}, 0);
  });
  CHECK(cut.kind == ErrorKind::Data);
  CHECK(cut.message.find("cut.safetensors") != std::string::npos);
  std::ofstream(dir / "junk.safetensors", std::ios::binary) << "junk";
  auto junk = error_of([&] {
    (void)data::open_dataset("safetensors:" + (dir / "junk.safetensors"), "", {{"pix", DType::F32, {2}}}, 0);
  });
  CHECK(junk.message.find("too few for a safetensors header") != std::string::npos);
}

}  // namespace
}  // namespace iputrain

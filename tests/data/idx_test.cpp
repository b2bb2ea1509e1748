// IDX datasets: small files written by the test (plain and gzipped), damaged files, the real
// Fashion-MNIST test split when installed.
#include <doctest/doctest.h>
#include <zlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/data/dataset.hpp"
#include "iputrain/error.hpp"
#include "temp_dir.hpp"

using namespace iputrain;
using iputrain::test::TempDir;

namespace {

void put_be32(std::vector<uint8_t>& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) {
    out.push_back(static_cast<uint8_t>(v >> s));
  }
}

std::vector<uint8_t> idx_images(uint32_t n, uint32_t rows, uint32_t cols, uint8_t first = 0) {
  std::vector<uint8_t> out;
  put_be32(out, 0x00000803);
  put_be32(out, n);
  put_be32(out, rows);
  put_be32(out, cols);
  for (uint32_t i = 0; i < n * rows * cols; ++i) {
    out.push_back(static_cast<uint8_t>(first + i * 7));
  }
  return out;
}

std::vector<uint8_t> idx_labels(uint32_t n) {
  std::vector<uint8_t> out;
  put_be32(out, 0x00000801);
  put_be32(out, n);
  for (uint32_t i = 0; i < n; ++i) {
    out.push_back(static_cast<uint8_t>(i % 10));
  }
  return out;
}

void write_plain(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void write_gz(const std::string& path, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) == static_cast<int>(bytes.size()));
  gzclose(f);
}

Error idx_error(const std::string& prefix) {
  try {
    (void)data::open_idx(prefix);
  } catch (const Error& e) {
    return e;
  }
  FAIL("open_idx accepted a bad file");
  return Error(ErrorKind::Internal, "unreachable");
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("idx: plain files") {
  TempDir dir("idx_plain");
  write_plain(dir / "train-images-idx3-ubyte", idx_images(5, 3, 4));
  write_plain(dir / "train-labels-idx1-ubyte", idx_labels(5));
  auto ds = data::open_idx(dir / "train");
  REQUIRE(ds->size() == 5);
  REQUIRE(ds->fields().size() == 2);
  CHECK(ds->fields()[0].name == "image");
  CHECK(ds->fields()[0].dtype == DType::F32);
  CHECK(ds->fields()[0].shape == Shape{3, 4});
  CHECK(ds->fields()[0].bytes() == 48);
  CHECK(ds->fields()[1].name == "label");
  CHECK(ds->fields()[1].dtype == DType::I32);
  CHECK(ds->fields()[1].shape.empty());

  std::vector<float> img(12);
  ds->read(2, 0, img.data());
  for (uint32_t i = 0; i < 12; ++i) {
    const uint8_t byte = static_cast<uint8_t>((2 * 12 + i) * 7);
    CHECK(img[i] == static_cast<float>(byte));  // the stored byte, unscaled
  }
  int32_t label = -1;
  ds->read(4, 1, &label);
  CHECK(label == 4);
}

TEST_CASE("idx: gzipped files through open_dataset with a relative prefix") {
  TempDir dir("idx_gz");
  std::filesystem::create_directories(dir.path() / "mnist");
  write_gz(dir / "mnist/t10k-images-idx3-ubyte.gz", idx_images(20, 2, 2));
  write_gz(dir / "mnist/t10k-labels-idx1-ubyte.gz", idx_labels(20));
  auto ds = data::open_dataset("idx:mnist/t10k", dir.path().string(),
                               {{"image", DType::F32, {2, 2}}, {"label", DType::I32, {}}}, 1);
  REQUIRE(ds->size() == 20);
  std::vector<float> img(4);
  ds->read(19, 0, img.data());
  CHECK(img[3] == static_cast<float>(static_cast<uint8_t>((19 * 4 + 3) * 7)));
  int32_t label = -1;
  ds->read(13, 1, &label);
  CHECK(label == 3);
}

TEST_CASE("idx: a plain file is preferred to its .gz") {
  TempDir dir("idx_prefer");
  write_plain(dir / "a-images-idx3-ubyte", idx_images(1, 1, 1, 255));
  write_gz(dir / "a-images-idx3-ubyte.gz", idx_images(1, 1, 1, 0));
  write_gz(dir / "a-labels-idx1-ubyte.gz", idx_labels(1));
  auto ds = data::open_idx(dir / "a");
  float v = 0;
  ds->read(0, 0, &v);
  CHECK(v == 255.0f);
}

TEST_CASE("idx: the image arrives in the model input's dtype") {
  TempDir dir("idx_dtype");
  write_plain(dir / "a-images-idx3-ubyte", idx_images(2, 1, 2, 200));
  write_plain(dir / "a-labels-idx1-ubyte", idx_labels(2));
  auto ds = data::open_dataset("idx:" + (dir / "a"), "", {{"image", DType::F16, {1, 2}}}, 0);
  uint16_t h[2] = {};
  ds->read(0, 0, h);
  CHECK(h[0] == 0x5a40);  // 200 in f16
  auto ints = data::open_dataset("idx:" + (dir / "a"), "", {{"image", DType::I32, {1, 2}}}, 0);
  int32_t i[2] = {};
  ints->read(1, 0, i);
  CHECK(i[0] == 214);
  CHECK(i[1] == 221);
}

TEST_CASE("idx: a u8 image input gets the stored bytes as they are") {
  TempDir dir("idx_u8");
  write_plain(dir / "a-images-idx3-ubyte", idx_images(2, 1, 3, 250));
  write_plain(dir / "a-labels-idx1-ubyte", idx_labels(2));
  auto ds = data::open_dataset("idx:" + (dir / "a"), "", {{"image", DType::U8, {1, 3}}}, 0);
  CHECK(ds->fields()[0].dtype == DType::U8);
  CHECK(ds->fields()[0].bytes() == 3);  // one byte a pixel, as stored
  uint8_t px[3] = {};
  ds->read(1, 0, px);
  // Sample 1 holds bytes 3..5 of the file's pixels, 250 + 7 i (mod 256).
  CHECK(px[0] == static_cast<uint8_t>(250 + 21));
  CHECK(px[1] == static_cast<uint8_t>(250 + 28));
  CHECK(px[2] == static_cast<uint8_t>(250 + 35));
}

TEST_CASE("idx: damaged files are rejected with the file named") {
  TempDir dir("idx_bad");
  write_plain(dir / "ok-labels-idx1-ubyte", idx_labels(4));

  SUBCASE("missing images") {
    Error e = idx_error(dir / "ok");
    CHECK(e.kind() == ErrorKind::Io);
    CHECK(contains(e.what(), "ok-images-idx3-ubyte"));
    CHECK(contains(e.hint(), "PREFIX-images-idx3-ubyte"));
  }
  SUBCASE("bad magic") {
    write_plain(dir / "ok-images-idx3-ubyte", idx_labels(4));  // a labels file in the images' place
    Error e = idx_error(dir / "ok");
    CHECK(e.kind() == ErrorKind::Data);
    CHECK(contains(e.what(), "ok-images-idx3-ubyte"));
    CHECK(contains(e.what(), "bad IDX magic number 0x00000801 (expected 0x00000803)"));
    CHECK_FALSE(e.hint().empty());
  }
  SUBCASE("not an IDX file at all") {
    write_plain(dir / "ok-images-idx3-ubyte", {'h', 'e', 'l', 'l', 'o', '!', '!', '!'});
    Error e = idx_error(dir / "ok");
    CHECK(contains(e.what(), "this is not an IDX file"));
  }
  SUBCASE("truncated data") {
    auto bytes = idx_images(4, 3, 3);
    bytes.erase(bytes.end() - 5, bytes.end());
    write_plain(dir / "ok-images-idx3-ubyte", bytes);
    Error e = idx_error(dir / "ok");
    CHECK(e.kind() == ErrorKind::Data);
    CHECK(
        contains(e.what(), "is truncated: its header (4 x 3 x 3) promises 36 bytes of data but it holds 31"));
  }
  SUBCASE("truncated header") {
    auto bytes = idx_images(4, 3, 3);
    bytes.erase(bytes.begin() + 9, bytes.end());
    write_plain(dir / "ok-images-idx3-ubyte", bytes);
    CHECK(contains(idx_error(dir / "ok").what(), "truncated inside its IDX header"));
  }
  SUBCASE("trailing bytes") {
    auto bytes = idx_images(4, 3, 3);
    bytes.push_back(0);
    write_plain(dir / "ok-images-idx3-ubyte", bytes);
    CHECK(contains(idx_error(dir / "ok").what(), "holds more than the 36 bytes"));
  }
  SUBCASE("absurd dimensions do not overflow") {
    std::vector<uint8_t> bytes;
    put_be32(bytes, 0x00000803);
    put_be32(bytes, 0xffffffff);
    put_be32(bytes, 0xffffffff);
    put_be32(bytes, 0xffffffff);
    write_plain(dir / "ok-images-idx3-ubyte", bytes);
    CHECK(contains(idx_error(dir / "ok").what(), "more than half of this machine's"));
  }
  SUBCASE("a gzip bomb is not inflated past the promised data") {
    // 36 bytes promised, 256 MiB of zeros stored (about 256 KiB compressed): refused after 37 bytes.
    TempDir gz("idx_bomb");
    auto bytes = idx_images(4, 3, 3);
    bytes.resize(bytes.size() + (size_t{256} << 20), 0);
    write_gz(gz / "x-images-idx3-ubyte.gz", bytes);
    write_gz(gz / "x-labels-idx1-ubyte.gz", idx_labels(4));
    CHECK(contains(idx_error(gz / "x").what(), "holds more than the 36 bytes"));
  }
  SUBCASE("truncated gzip stream") {
    TempDir gz("idx_bad_gz");
    write_gz(gz / "x-images-idx3-ubyte.gz", idx_images(50, 8, 8));
    auto size = std::filesystem::file_size(gz / "x-images-idx3-ubyte.gz");
    std::filesystem::resize_file(gz / "x-images-idx3-ubyte.gz", size / 2);
    write_plain(gz / "x-labels-idx1-ubyte", idx_labels(50));
    Error e = idx_error(gz / "x");
    CHECK(e.kind() == ErrorKind::Data);
    CHECK(contains(e.what(), "x-images-idx3-ubyte.gz"));
  }
  SUBCASE("image and label counts differ") {
    write_plain(dir / "ok-images-idx3-ubyte", idx_images(5, 2, 2));
    Error e = idx_error(dir / "ok");
    CHECK(contains(e.what(), "has 5 images but"));
    CHECK(contains(e.what(), "has 4 labels"));
  }
}

TEST_CASE("idx: the real Fashion-MNIST test split") {
  const std::string prefix = "/usr/share/datasets/fashion-mnist/t10k";
  if (!std::filesystem::exists(prefix + "-images-idx3-ubyte.gz") &&
      !std::filesystem::exists(prefix + "-images-idx3-ubyte")) {
    MESSAGE("Fashion-MNIST is not installed at /usr/share/datasets/fashion-mnist; skipped");
    return;
  }
  auto t0 = std::chrono::steady_clock::now();
  auto ds = data::open_dataset("idx:" + prefix, "",
                               {{"image", DType::F32, {28, 28}}, {"label", DType::I32, {}}}, 0);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE("opened 10000 Fashion-MNIST test images in " << seconds << " s");
  REQUIRE(ds->size() == 10000);
  std::set<int32_t> labels;
  std::vector<float> img(784);
  double sum = 0;
  for (int64_t i = 0; i < ds->size(); ++i) {
    int32_t label = -1;
    ds->read(i, 1, &label);
    REQUIRE(label >= 0);
    REQUIRE(label < 10);
    labels.insert(label);
    if (i % 100 == 0) {
      ds->read(i, 0, img.data());
      for (float v : img) {
        REQUIRE(v >= 0.0f);
        REQUIRE(v <= 255.0f);  // the stored bytes: a model scales them itself
        sum += v;
      }
    }
  }
  CHECK(labels.size() == 10);
  CHECK(sum / (100.0 * 784) > 25.5);  // real images, not blank ones
}

TEST_CASE("check_fields names the field and both types") {
  TempDir dir("idx_check");
  write_plain(dir / "s-images-idx3-ubyte", idx_images(3, 2, 2));
  write_plain(dir / "s-labels-idx1-ubyte", idx_labels(3));
  auto ds = data::open_idx(dir / "s");
  data::check_fields(*ds, {{"image", DType::F32, {2, 2}}});

  try {
    data::check_fields(*ds, {{"image", DType::F32, {4}}}, "idx:s");
    FAIL("shape mismatch accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Data);
    CHECK(std::string(e.what()) ==
          "field `image` of \"idx:s\" is f32[2, 2] per sample but the model's input is f32[4]");
    CHECK(e.hint() == "declare the input as f32[2, 2] and reshape it in the model");
  }
  try {
    data::check_fields(*ds, {{"label", DType::F32, {}}});
    FAIL("dtype mismatch accepted");
  } catch (const Error& e) {
    CHECK(contains(e.what(), "is i32[] per sample but the model's input is f32[]"));
  }
  try {
    (void)data::open_dataset("idx:" + (dir / "s"), "", {{"pixels", DType::F32, {2, 2}}}, 0);
    FAIL("missing field accepted");
  } catch (const Error& e) {
    CHECK(contains(e.what(), "has no field `pixels`"));
    CHECK(contains(e.hint(), "image: f32[2, 2], label: i32[]"));
  }
}

TEST_CASE("open_dataset rejects unknown specs") {
  for (const char* spec : {"", "mnist", "parquet:data.parquet", "idx:"}) {
    INFO(spec);
    try {
      (void)data::open_dataset(spec, "", {}, 0);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Data);
      CHECK_FALSE(e.hint().empty());
    }
  }
}

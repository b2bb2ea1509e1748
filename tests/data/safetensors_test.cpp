// safetensors weight files: round trip, exact bytes, atomic replacement, damaged files.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/data/safetensors.hpp"
#include "iputrain/error.hpp"
#include "temp_dir.hpp"

using namespace iputrain;
using data::NamedTensor;
using iputrain::test::TempDir;

namespace {

template <typename T>
std::vector<uint8_t> bytes_of(std::initializer_list<T> values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), std::data(values), out.size());
  return out;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

//! A file with the given header text (length prefix added) followed by `data`.
void write_raw(const std::string& path, const std::string& header, const std::vector<uint8_t>& data,
               uint64_t claimed_len = UINT64_MAX) {
  const uint64_t n = claimed_len == UINT64_MAX ? header.size() : claimed_len;
  std::ofstream out(path, std::ios::binary);
  for (int i = 0; i < 8; ++i) {
    out.put(static_cast<char>(n >> (8 * i)));
  }
  out << header;
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

Error read_error(const std::string& path) {
  try {
    (void)data::read_safetensors(path);
  } catch (const Error& e) {
    return e;
  }
  FAIL("read_safetensors accepted a bad file");
  return Error(ErrorKind::Internal, "unreachable");
}

}  // namespace

TEST_CASE("safetensors: round trip of every dtype") {
  TempDir dir("st_roundtrip");
  std::vector<NamedTensor> tensors = {
      {"layer2/kernel", DType::F32, {2, 3}, bytes_of<float>({1, 2, 3, 4, 5, -6.5f})},
      {"counts", DType::I32, {3}, bytes_of<int32_t>({-1, 0, 2147483647})},
      {"half", DType::F16, {2}, bytes_of<uint16_t>({0x3c00, 0xc000})},
      {"brain", DType::BF16, {1, 1}, bytes_of<uint16_t>({0x3f80})},
      {"mask", DType::Bool, {4}, {1, 0, 0, 1}},
      {"scalar", DType::F32, {}, bytes_of<float>({3.25f})},
      {"empty", DType::F32, {0, 5}, {}},
  };
  const std::map<std::string, std::string> meta = {{"format", "iputrain"}, {"step", "100"}};
  const std::string path = dir / "w.safetensors";
  data::write_safetensors(path, tensors, meta);
  const data::SafetensorsFile file = data::read_safetensors(path);
  CHECK(file.metadata == meta);
  REQUIRE(file.tensors.size() == tensors.size());
  std::sort(tensors.begin(), tensors.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (size_t i = 0; i < tensors.size(); ++i) {
    INFO(tensors[i].name);
    CHECK(file.tensors[i].name == tensors[i].name);
    CHECK(file.tensors[i].dtype == tensors[i].dtype);
    CHECK(file.tensors[i].shape == tensors[i].shape);
    CHECK(file.tensors[i].bytes == tensors[i].bytes);
  }
  // The data section starts 8-byte aligned.
  auto raw = read_bytes(path);
  uint64_t n = 0;
  std::memcpy(&n, raw.data(), 8);
  CHECK(n % 8 == 0);
}

TEST_CASE("safetensors: exact bytes against a hand-written header") {
  TempDir dir("st_exact");
  const std::string path = dir / "exact.safetensors";
  data::write_safetensors(
      path,
      {{"b", DType::F32, {2}, bytes_of<float>({1.0f, 2.0f})}, {"a", DType::I32, {}, bytes_of<int32_t>({7})}},
      {{"format", "ipu"}});
  std::string header = R"({"__metadata__":{"format":"ipu"},)"
                       R"("a":{"dtype":"I32","shape":[],"data_offsets":[0,4]},)"
                       R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})";
  REQUIRE(header.size() == 139);
  header += "     ";  // padded with spaces to 144 = 18 * 8
  std::vector<uint8_t> expected = {144, 0, 0, 0, 0, 0, 0, 0};
  expected.insert(expected.end(), header.begin(), header.end());
  for (uint8_t b : {7, 0, 0, 0, /* 1.0f */ 0, 0, 0x80, 0x3f, /* 2.0f */ 0, 0, 0, 0x40}) {
    expected.push_back(b);
  }
  CHECK(read_bytes(path) == expected);

  // Without metadata there is no "__metadata__" entry.
  data::write_safetensors(path, {{"w", DType::Bool, {1}, {1}}});
  std::string plain = R"({"w":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]}})";
  auto got = read_bytes(path);
  CHECK(std::string(got.begin() + 8, got.begin() + 8 + static_cast<long>(plain.size())) == plain);
}

TEST_CASE("safetensors: writes replace the file atomically and leave no temporaries") {
  TempDir dir("st_atomic");
  const std::string path = dir / "w.safetensors";
  data::write_safetensors(path, {{"x", DType::F32, {1}, bytes_of<float>({1.0f})}});
  data::write_safetensors(path, {{"x", DType::F32, {2}, bytes_of<float>({2.0f, 3.0f})}});
  auto file = data::read_safetensors(path);
  REQUIRE(file.tensors.size() == 1);
  CHECK(file.tensors[0].shape == Shape{2});
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) {
    ++entries;
  }
  CHECK(entries == 1);

  try {
    data::write_safetensors(dir / "no/such/dir/w.safetensors", {});
    FAIL("wrote into a missing directory");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Io);
    CHECK(std::string(e.what()).find("no/such/dir/w.safetensors") != std::string::npos);
  }
  CHECK_THROWS_AS(data::write_safetensors(path, {{"x", DType::F32, {2}, bytes_of<float>({1.0f})}}), Error);
  CHECK_THROWS_AS(data::write_safetensors(path, {{"x", DType::F32, {}, bytes_of<float>({1.0f})},
                                                 {"x", DType::F32, {}, bytes_of<float>({1.0f})}}),
                  Error);
  // The failed writes left the previous file intact.
  CHECK(data::read_safetensors(path).tensors[0].shape == Shape{2});
}

TEST_CASE("safetensors: damaged files are rejected") {
  TempDir dir("st_bad");
  const std::string path = dir / "bad.safetensors";
  const std::string good = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const std::vector<uint8_t> eight(8, 0);
  auto expect = [&](const std::string& part, ErrorKind kind = ErrorKind::Data) {
    Error e = read_error(path);
    INFO(e.what());
    CHECK(e.kind() == kind);
    CHECK(std::string(e.what()).find(path) != std::string::npos);
    CHECK(std::string(e.what()).find(part) != std::string::npos);
    CHECK_FALSE(e.hint().empty());
  };

  write_raw(path, good, eight);
  CHECK(data::read_safetensors(path).tensors.size() == 1);

  CHECK(read_error(dir / "missing.safetensors").kind() == ErrorKind::Io);
  std::ofstream(path, std::ios::binary) << "abc";
  expect("too few for a safetensors header");
  write_raw(path, good, eight, 1ull << 40);
  expect("header length 1099511627776 does not fit");
  write_raw(path, "{not json", {});
  expect("not valid JSON");
  write_raw(path, "[1,2]", {});
  expect("not a JSON object");
  write_raw(path, R"({"w":{"dtype":"F32","shape":[2]}})", eight);
  expect("lacks");
  write_raw(path, R"({"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", eight);
  expect("dtype F64, which iputrain does not support");
  write_raw(path, R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", eight);
  expect("not a non-negative integer");
  write_raw(path, R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,16]}})", eight);
  expect("outside the 8 bytes of data");
  write_raw(path, R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight);
  expect("is F32[3] but its data_offsets hold 8 bytes");
  write_raw(path, R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", eight);
  expect("starts at byte 4 of the data, expected 0");
  write_raw(path, R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", eight);
  expect("cover 4 bytes of data but the file holds 8");
  write_raw(
      path,
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
      eight);
  expect("tensor `b` starts at byte 4 of the data, expected 8");
  write_raw(path, R"({"__metadata__":{"step":3},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
            eight);
  expect("metadata value \"step\" is not a string");
  write_raw(path, good, {1, 2, 3});  // data cut short
  expect("outside the 3 bytes of data");
}

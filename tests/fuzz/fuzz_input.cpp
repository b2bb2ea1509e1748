#include "fuzz_input.hpp"

#include <stdlib.h>

#include <algorithm>
#include <cstdlib>

#include <filesystem>
#include <fstream>

namespace iputrain::fuzz {

namespace fs = std::filesystem;

const std::string& scratch_dir() {
  // Never destroyed: the exit handler below runs after static destructors would have.
  static const std::string* const dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "iputrain-fuzz-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) {
      throw std::runtime_error("cannot create a scratch folder under " + fs::temp_directory_path().string());
    }
    return new std::string(tmpl);
  }();
  static const bool cleanup = [] {
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(*dir, ec);
    });
    return true;
  }();
  (void)cleanup;
  return *dir;
}

void clear_scratch() {
  for (const auto& entry : fs::directory_iterator(scratch_dir())) {
    fs::remove_all(entry.path());
  }
}

std::string write_scratch(const std::string& name, std::string_view bytes) {
  const fs::path path = fs::path(scratch_dir()) / name;
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path.string();
}

bool verbose() {
  static const bool on = std::getenv("IPUTRAIN_FUZZ_VERBOSE") != nullptr;
  return on;
}

Input split_input(const uint8_t* data, size_t size) {
  if (size == 0) {
    return {};
  }
  return {data[0], std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1)};
}

std::vector<std::string> lines_of(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    if (end > start) {
      lines.emplace_back(text.substr(start, end - start));
    }
    start = end + 1;
  }
  return lines;
}

std::pair<std::string_view, std::string_view> cut_in_two(std::string_view payload) {
  if (payload.size() < 2) {
    return {payload, {}};
  }
  const size_t at = (static_cast<size_t>(static_cast<uint8_t>(payload[0])) << 8 |
                     static_cast<uint8_t>(payload[1]));
  const std::string_view rest = payload.substr(2);
  const size_t cut = std::min(at, rest.size());
  return {rest.substr(0, cut), rest.substr(cut)};
}

}  // namespace iputrain::fuzz

#include "core/read_limits.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace iputrain {

void check_text_file_size(const std::string& path, const std::string& what, ErrorKind kind) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxTextBytes) {
    throw Error(kind,
                fmt::format("{} `{}` is {:.1f} MiB, more than the {} MiB iputrain reads", what, path,
                            static_cast<double>(size) / (1 << 20), kMaxTextBytes >> 20),
                {}, "is it the right file? a model or config file is text of a few kilobytes");
  }
}

}  // namespace iputrain

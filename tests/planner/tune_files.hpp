// The model and config files of the tune tests, in one temporary folder per test program.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace tune_test {

//! Writes `text` to `name` in the temporary folder `folder` and returns its path. Written aside and
//! renamed: CTest runs the cases in parallel processes that write the same file, and a reader must
//! never see it half written.
inline std::string write(const std::string& folder, const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / folder;
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  const std::string aside = path + "." + std::to_string(getpid());
  std::ofstream(aside) << text;
  std::filesystem::rename(aside, path);
  return path;
}

}  // namespace tune_test

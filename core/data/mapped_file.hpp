// iputrain — a read-only memory map of a whole file, so that large arrays are paged in by the
// kernel as samples are read instead of being copied into memory at open.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace iputrain::data {

//! A file mapped read-only for the object's lifetime. Not copyable; share it by shared_ptr.
class MappedFile {
 public:
  //! Maps `path`. Throws Error(Io) naming the file if it cannot be opened or mapped.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace iputrain::data

#include "core/data/mapped_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "iputrain/error.hpp"

namespace iputrain::data {

MappedFile::MappedFile(const std::string& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw Error(ErrorKind::Io, fmt::format("cannot open `{}`: {}", path, std::strerror(errno)), {},
                "check the path and the file's permissions");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(ErrorKind::Io, fmt::format("cannot read `{}`: not a regular file", path), {},
                "name a file, not a directory");
  }
  size_ = static_cast<size_t>(st.st_size);
  // mmap refuses a length of 0; an empty file simply has no bytes.
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw Error(ErrorKind::Io, fmt::format("cannot map `{}`: {}", path, std::strerror(err)), {},
                  "check that the file is readable and the address space is not exhausted");
    }
    data_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) {
    ::munmap(const_cast<uint8_t*>(data_), size_);
  }
}

}  // namespace iputrain::data

#include "core/write_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <cstring>
#include <filesystem>

#include "iputrain/error.hpp"

namespace iputrain {

namespace {

int injected(bool at_create, std::string_view path) {
  const char* v = std::getenv("IPUTRAIN_FAULT_WRITE_ERROR");
  if (v == nullptr) {
    return 0;
  }
  if (const char* only = std::getenv("IPUTRAIN_FAULT_WRITE_PATH");
      only != nullptr && path.find(only) == std::string_view::npos) {
    return 0;
  }
  const std::string name(v);
  if (name == "ENOSPC" || name == "EIO") {
    return at_create ? 0 : (name == "ENOSPC" ? ENOSPC : EIO);
  }
  if (name == "EROFS" || name == "EACCES") {
    return at_create ? (name == "EROFS" ? EROFS : EACCES) : 0;
  }
  return 0;
}

}  // namespace

int injected_create_error(std::string_view path) { return injected(true, path); }
int injected_write_error(std::string_view path) { return injected(false, path); }

AtomicFile::AtomicFile(std::string path, std::string what) : path_(std::move(path)), what_(std::move(what)) {
  const std::filesystem::path target(path_);
  dir_ = target.has_parent_path() ? target.parent_path().string() : std::string(".");
  tmp_ = (std::filesystem::path(dir_) / fmt::format(".{}.tmp.XXXXXX", target.filename().string())).string();
  if (const int err = injected_create_error(path_)) {
    fail("cannot create a temporary file next to it", err);
  }
  fd_ = ::mkstemp(tmp_.data());
  if (fd_ < 0) {
    fail("cannot create a temporary file next to it", errno);
  }
  fault_ = injected_write_error(path_);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

void AtomicFile::fail(const char* step, int err) {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
    ::unlink(tmp_.c_str());
  }
  throw Error(ErrorKind::Io, fmt::format("cannot write {}`{}`: {}: {}", what_, path_, step, std::strerror(err)), {},
              "check that the folder exists and is writable");
}

void AtomicFile::write(const void* data, size_t n) {
  if (fault_ != 0) {
    fail("write failed", fault_);
  }
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) {
      continue;
    }
    if (w <= 0) {
      fail("write failed", w < 0 ? errno : EIO);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void AtomicFile::commit() {
  if (fault_ != 0) {  // nothing was written: an empty file fails where its first write would
    fail("write failed", fault_);
  }
  // mkstemp creates the file 0600; an output file should be as readable as any other.
  ::fchmod(fd_, 0644);
  if (::fsync(fd_) != 0) {
    fail("flushing it failed", errno);
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    fail("flushing it failed", err);
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    fail("rename failed", err);
  }
  // Make the rename itself durable.
  if (const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void write_file_atomically(const std::string& path, std::string_view text) {
  AtomicFile file(path);
  file.write(text.data(), text.size());
  file.commit();
}

void prepare_output(const std::string& path, std::string_view flag, bool is_dir) {
  namespace fs = std::filesystem;
  const auto refuse = [&](const std::string& what, const std::string& hint) {
    throw Error(ErrorKind::Io, fmt::format("cannot write {} `{}`: {}", flag, path, what), {}, hint);
  };
  const fs::path target(path);
  std::error_code ec;
  if (!is_dir && fs::is_directory(target, ec)) {
    refuse("it is a folder", "name a file in it");
  }
  const fs::path dir = is_dir ? target : (target.has_parent_path() ? target.parent_path() : fs::path("."));
  if (!fs::is_directory(dir, ec)) {
    if (fs::exists(dir, ec)) {
      refuse(fmt::format("`{}` is a file, not a folder", dir.string()), "choose another path");
    }
    fs::create_directories(dir, ec);
    if (ec) {
      refuse(fmt::format("cannot create the folder `{}`: {}", dir.string(), ec.message()),
             "check that the path is right and its existing part writable");
    }
  }
  std::string probe = (dir / ".iputrain-probe.XXXXXX").string();
  const int injected_err = injected_create_error(path);
  const int fd = injected_err != 0 ? (errno = injected_err, -1) : ::mkstemp(probe.data());
  if (fd < 0) {
    refuse(fmt::format("cannot create a file in `{}`: {}", dir.string(), std::strerror(errno)),
           "check that the folder is writable");
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace iputrain

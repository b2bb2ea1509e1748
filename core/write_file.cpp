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

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw Error(ErrorKind::Io, fmt::format("cannot write `{}`: {}: {}", path, what, std::strerror(err)), {},
              "check that the folder exists and is writable");
}

int injected(bool at_create) {
  const char* v = std::getenv("IPUTRAIN_FAULT_WRITE_ERROR");
  if (v == nullptr) {
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

int injected_create_error() { return injected(true); }
int injected_write_error() { return injected(false); }

void write_file_atomically(const std::string& path, std::string_view text) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string tmp = (dir / fmt::format(".{}.tmp.XXXXXX", target.filename().string())).string();
  if (const int err = injected_create_error()) {
    fail(path, "cannot create a temporary file next to it", err);
  }
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    fail(path, "cannot create a temporary file next to it", errno);
  }
  const int fault = injected_write_error();
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = fault != 0 ? (errno = fault, -1) : ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail(path, "write failed", err);
    }
    done += static_cast<size_t>(n);
  }
  // mkstemp creates the file 0600; an output file should be as readable as any other.
  ::fchmod(fd, 0644);
  const bool synced = ::fsync(fd) == 0;
  const int sync_err = errno;
  if (::close(fd) != 0 || !synced) {
    const int err = synced ? errno : sync_err;
    ::unlink(tmp.c_str());
    fail(path, "flushing it failed", err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(path, "rename failed", err);
  }
}

}  // namespace iputrain

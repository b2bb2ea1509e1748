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

void write_file_atomically(const std::string& path, std::string_view text) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string tmp = (dir / fmt::format(".{}.tmp.XXXXXX", target.filename().string())).string();
  if (const int err = injected_create_error(path)) {
    fail(path, "cannot create a temporary file next to it", err);
  }
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    fail(path, "cannot create a temporary file next to it", errno);
  }
  const int fault = injected_write_error(path);
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

#include "tuner/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernels/common/errors.h"

namespace aotune::tuner {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw Error(what + " '" + path + "': " + std::strerror(errno));
}

void fsync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) fail("cannot open for fsync", path);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) fail("cannot fsync", path);
}

bool fsync_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("AOTUNE_FSYNC");
    return v == nullptr || std::string(v) != "0";
  }();
  return enabled;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content, bool durable) {
  durable = durable && fsync_enabled();
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create folder '" + dir.string() + "': " + ec.message());
  // The pid keeps concurrent writers (workers of one sweep) off each other's temporaries.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", tmp);
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("cannot write", tmp);
    }
    done += static_cast<std::size_t>(n);
  }
  if (durable && ::fsync(fd) != 0) {
    ::close(fd);
    ::unlink(tmp.c_str());
    fail("cannot fsync", tmp);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    fail("cannot rename a temporary over", path);
  }
  if (durable) fsync_path(dir.string(), O_RDONLY | O_DIRECTORY);
}

std::optional<std::string> read_file_if_exists(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!fs::exists(path)) return std::nullopt;
    throw Error("cannot read '" + path + "': " + std::strerror(errno));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool remove_file_if_exists(const std::string& path) {
  std::error_code ec;
  return fs::remove(path, ec);
}

}  // namespace aotune::tuner

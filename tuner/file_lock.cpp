#include "tuner/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "kernels/common/errors.h"
#include "tuner/atomic_file.h"

namespace aotune::tuner {

FileLock::FileLock(std::string path, double timeout_seconds) : path_(std::move(path)) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), ec);
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  for (;;) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error("cannot open lock file '" + path_ + "': " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) {
      // The holder before us may have unlinked the file after we opened it: then lock the new one.
      struct stat held {
      }, now{};
      if (::fstat(fd_, &held) == 0 && ::stat(path_.c_str(), &now) == 0 &&
          held.st_ino == now.st_ino && held.st_dev == now.st_dev) {
        const std::string pid = std::to_string(::getpid()) + "\n";
        if (::ftruncate(fd_, 0) == 0 &&
            ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) { /* the pid is a courtesy */
        }
        return;
      }
    } else if (errno != EWOULDBLOCK) {
      const std::string why = std::strerror(errno);
      ::close(fd_);
      throw Error("cannot lock '" + path_ + "': " + why);
    }
    ::close(fd_);
    fd_ = -1;
    if (std::chrono::steady_clock::now() >= until) {
      const auto holder = read_file_if_exists(path_).value_or("?\n");
      throw Error("another 'aot-runner tune' (pid " + holder.substr(0, holder.find('\n')) +
                  ") is writing the database " + "locked by " + path_ +
                  "; wait for it to finish or stop it");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

FileLock::~FileLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while still locked: a waiter re-checks the inode and starts over
  ::close(fd_);
}

}  // namespace aotune::tuner

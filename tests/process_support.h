// Running a shell command from a test: what it printed and how it exited.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace aotune::test {

// The stdout of `sh -c command` (add 2>&1 for stderr too) and its exit code (-1: killed by a
// signal, or the shell could not start).
inline std::string command_output(const std::string& command, int* exit_code) {
  std::string out;
  *exit_code = -1;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;)
    out.append(buf.data(), n);
  const int status = pclose(pipe);
  if (status != -1 && WIFEXITED(status)) *exit_code = WEXITSTATUS(status);
  return out;
}

}  // namespace aotune::test

// Files that are either the old content or the new one, never half of each: write a temporary in
// the same folder, fsync it, rename it over the target, fsync the folder.
#pragma once

#include <optional>
#include <string>

namespace aotune::tuner {

// Creates missing parent folders. `durable` = false skips the fsyncs (journal files that only have
// to survive the death of a process, not of the machine); so does AOTUNE_FSYNC=0 for every file
// (tests and throwaway sweeps: the rename keeps files whole when a process dies, fsync only guards
// against power loss). Throws aotune::Error naming the path.
void write_file_atomically(const std::string& path, const std::string& content,
                           bool durable = true);

// The whole file, or nullopt when it does not exist. Throws aotune::Error on other read errors.
std::optional<std::string> read_file_if_exists(const std::string& path);

// Removes the file if it exists; true when it did.
bool remove_file_if_exists(const std::string& path);

}  // namespace aotune::tuner

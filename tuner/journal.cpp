#include "tuner/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "kernels/common/errors.h"
#include "tuner/atomic_file.h"

namespace aotune::tuner {

JournalWriter::JournalWriter(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), ec);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("cannot open the journal '" + path_ + "': " + std::strerror(errno));
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void JournalWriter::write(const JournalEntry& e) {
  const nlohmann::ordered_json j = {
      {"shape", e.shape_key}, {"config", e.config}, {"phase", e.phase}, {"error", e.error}};
  const std::string line = j.dump() + "\n";  // dump() escapes newlines: the record is one line
  if (::pwrite(fd_, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
    throw Error("cannot write the journal '" + path_ + "': " + std::strerror(errno));
  }
}

std::optional<JournalEntry> read_journal(const std::string& path) {
  const auto text = read_file_if_exists(path);
  if (!text) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(text->substr(0, text->find('\n')));
    return JournalEntry{j.at("shape").get<std::string>(), j.at("config").get<int64_t>(),
                        j.at("phase").get<std::string>(), j.at("error").get<std::string>()};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // not a journal line: ignore it
  }
}

std::vector<CrashRecord> load_crash_records(const std::string& path) {
  const auto text = read_file_if_exists(path);
  if (!text) return {};
  std::vector<CrashRecord> out;
  try {
    for (const auto& r : nlohmann::json::parse(*text).at("crashes")) {
      out.push_back({r.at("shape").get<std::string>(), r.at("config").get<int64_t>(),
                     r.at("reason").get<std::string>()});
    }
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(path + " (the list of cells that crashed a worker) is malformed: " +
                          e.what() + "; delete it to measure those cells again");
  }
  return out;
}

void save_crash_records(const std::string& path, const std::vector<CrashRecord>& records) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& r : records)
    list.push_back({{"shape", r.shape_key}, {"config", r.config}, {"reason", r.reason}});
  write_file_atomically(path, nlohmann::ordered_json{{"crashes", list}}.dump(2) + "\n");
}

}  // namespace aotune::tuner

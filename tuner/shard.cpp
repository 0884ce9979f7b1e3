#include "tuner/shard.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <vector>

#include "kernels/common/errors.h"

namespace aotune::tuner {

namespace {

int parse_nonnegative(const std::string& text, const std::string& what) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
      text.size() > 9) {
    throw InvalidArgument(what + "='" + text + "' is not a non-negative integer");
  }
  return std::stoi(text);
}

std::string stem(const std::string& db_path) {
  const std::string ext = ".json";
  return db_path.size() > ext.size() && db_path.ends_with(ext)
             ? db_path.substr(0, db_path.size() - ext.size())
             : db_path;
}

}  // namespace

ShardSpec parse_shard(const std::string& text, const std::string& source) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) {
    throw InvalidArgument(source + "='" + text +
                          "' is not of the form i/N (e.g. 0/4: the first of 4 shards)");
  }
  ShardSpec s;
  s.index = parse_nonnegative(text.substr(0, slash), source + " index");
  s.count = parse_nonnegative(text.substr(slash + 1), source + " count");
  s.source = source;
  if (s.count < 1 || s.index >= s.count) {
    throw InvalidArgument(source + "='" + text + "': need 0 <= i < N");
  }
  return s;
}

ShardSpec resolve_shard(const std::string& option, const GetEnv& getenv) {
  auto env = [&](const char* name) -> std::string {
    const char* v = getenv(name);
    return v == nullptr ? std::string() : std::string(v);
  };
  if (!option.empty()) return parse_shard(option, "--shard");
  if (const std::string v = env("AOTUNE_SHARD"); !v.empty()) return parse_shard(v, "AOTUNE_SHARD");
  if (const std::string id = env("SLURM_ARRAY_TASK_ID"); !id.empty()) {
    const std::string count = env("SLURM_ARRAY_TASK_COUNT");
    if (count.empty())
      throw InvalidArgument(
          "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; pass --shard i/N");
    const std::string step = env("SLURM_ARRAY_TASK_STEP");
    if (!step.empty() && step != "1") {
      throw InvalidArgument("Slurm array step " + step +
                            " is not 1: use --array=0-(N-1) or pass --shard i/N");
    }
    const int min = env("SLURM_ARRAY_TASK_MIN").empty()
                        ? 0
                        : parse_nonnegative(env("SLURM_ARRAY_TASK_MIN"), "SLURM_ARRAY_TASK_MIN");
    const int i = parse_nonnegative(id, "SLURM_ARRAY_TASK_ID") - min;
    return parse_shard(std::to_string(i) + "/" + count,
                       "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT");
  }
  if (const std::string id = env("JOB_COMPLETION_INDEX"); !id.empty()) {
    const std::string count = env("AOTUNE_SHARD_COUNT");
    if (count.empty()) {
      throw InvalidArgument(
          "JOB_COMPLETION_INDEX is set (Kubernetes indexed job) but AOTUNE_SHARD_COUNT is not: "
          "set it to the job's completions, or pass --shard i/N");
    }
    return parse_shard(id + "/" + count, "JOB_COMPLETION_INDEX/AOTUNE_SHARD_COUNT");
  }
  return {};
}

std::string database_path(const std::string& out_dir, const std::string& arch,
                          const std::string& kernel, const ShardSpec& shard) {
  const std::string base = out_dir + "/" + arch + "/" + kernel;
  if (!shard.sharded()) return base + ".json";
  return base + ".shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count) +
         ".json";
}

std::string worker_database_path(const std::string& db_path, int worker, int workers) {
  return stem(db_path) + ".worker-" + std::to_string(worker) + "-of-" + std::to_string(workers) +
         ".json";
}

namespace {

// Files next to `db_path` named <stem>.worker-*<suffix>, sorted.
std::vector<std::string> find_worker_files(const std::string& db_path, std::string_view suffix) {
  namespace fs = std::filesystem;
  const fs::path p(stem(db_path));
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const std::string prefix = p.filename().string() + ".worker-";
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(suffix)) out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::string> find_worker_databases(const std::string& db_path) {
  return find_worker_files(db_path, ".json");
}

std::vector<std::string> find_worker_journals(const std::string& db_path) {
  return find_worker_files(db_path, ".json.journal");
}

}  // namespace aotune::tuner

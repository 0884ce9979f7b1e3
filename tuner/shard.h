// Deterministic slices of a grid for cluster array jobs, and the file names of the pieces.
// A shard i/N holds the shapes whose grid index % N == i. The shard comes from, in order:
//   --shard i/N; AOTUNE_SHARD=i/N; Slurm arrays (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of
//   SLURM_ARRAY_TASK_COUNT); Kubernetes indexed jobs (JOB_COMPLETION_INDEX, with the count in
//   AOTUNE_SHARD_COUNT: set it to the job's .spec.completions, Kubernetes does not export it).
// --shard 0/1 turns sharding off inside an array job.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace aotune::tuner {

struct ShardSpec {
  int index = 0;
  int count = 1;
  std::string source = "default";  // where it came from, for the log

  bool sharded() const { return count > 1; }
  bool holds(int64_t shape_index) const { return shape_index % count == index; }
};

// "i/N" with 0 <= i < N. Throws InvalidArgument.
ShardSpec parse_shard(const std::string& text, const std::string& source = "--shard");

using GetEnv = std::function<const char*(const char*)>;
// `option` is the --shard value ("" when not given).
ShardSpec resolve_shard(const std::string& option, const GetEnv& getenv);

// <out_dir>/<arch>/<kernel>.json, or <kernel>.shard-i-of-N.json for a shard.
std::string database_path(const std::string& out_dir, const std::string& arch,
                          const std::string& kernel, const ShardSpec& shard);
// The file worker w of W writes while several GPUs share one database: <db
// stem>.worker-w-of-W.json.
std::string worker_database_path(const std::string& db_path, int worker, int workers);
// Worker files left next to `db_path` by an interrupted multi-GPU sweep.
std::vector<std::string> find_worker_databases(const std::string& db_path);
// The journals of those pieces' workers (a worker killed before its first save leaves only one).
std::vector<std::string> find_worker_journals(const std::string& db_path);

}  // namespace aotune::tuner

// Running `aot-runner tune` / `merge` as a user would, with the simulated device, in a temporary
// folder per test: small grids, subprocesses that can be killed midway, and file helpers.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace aotune::tuner_test {

namespace fs = std::filesystem;

struct CliResult {
  int exit_code = -1;  // -signal when killed
  std::string out;
  std::string err;
};

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// A fresh folder under the system temp dir, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() / ("aotune-" + std::string(info->test_suite_name()) + "-" +
                                         info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& rel) const { return path_ / rel; }

 private:
  fs::path path_;
};

// A small jagged_sum grid: `shapes` shapes (B x M x len combinations), enough to test the flow
// fast.
inline nlohmann::ordered_json small_jagged_sum_grid(int shapes) {
  nlohmann::ordered_json B = nlohmann::ordered_json::array();
  for (int i = 0; i < shapes; ++i) B.push_back(1 + 37 * i);
  return {{"kernel", "jagged_sum"},
          {"generators",
           {{{"B", B},
             {"M", {16}},
             {"len", {8}},
             {"dist", "uniform"},
             {"dtype", "f32"},
             {"seed", 5}}}}};
}

inline void write_grid(const fs::path& grid_dir, const nlohmann::ordered_json& grid) {
  write_text(grid_dir / (grid["kernel"].get<std::string>() + ".json"), grid.dump(2));
}

class Cli {
 public:
  // Starts aot-runner (or `program`) with `args`; extra environment on top of ours
  // (AOTUNE_FSYNC=0 for speed).
  Cli(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
      const fs::path& io_dir, const std::string& program = AOT_RUNNER_PATH)
      : out_path_(io_dir / ("stdout." + std::to_string(counter()))),
        err_path_(io_dir / ("stderr." + std::to_string(counter()))) {
    std::vector<std::string> argv_s = {program};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::map<std::string, std::string> vars = {{"AOTUNE_FSYNC", "0"}};
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string kv = *e;
      const auto eq = kv.find('=');
      if (eq != std::string::npos && !vars.count(kv.substr(0, eq)))
        vars[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const char* drop : {"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AOTUNE_SHARD",
                             "AOTUNE_ASSERT_CACHE_HIT", "AOTUNE_SIM_DELAY_MS", "AOTUNE_SIM_FAIL",
                             "AOTUNE_SIM_CRASH", "AOTUNE_SIM_LOSE_CONTEXT"}) {
      vars.erase(drop);
    }
    for (const auto& [k, v] : env) vars[k] = v;
    std::vector<std::string> env_s;
    for (const auto& [k, v] : vars) env_s.push_back(k + "=" + v);
    std::vector<char*> argv, envp;
    for (auto& s : argv_s) argv.push_back(s.data());
    argv.push_back(nullptr);
    for (auto& s : env_s) envp.push_back(s.data());
    envp.push_back(nullptr);
    // The signals a sweep handles start at their defaults, whatever this test process inherited
    // (a background job of a non-interactive shell ignores SIGINT).
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, sig);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    const int rc = posix_spawn(&pid_, argv[0], &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) pid_ = -1;
  }
  ~Cli() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  void kill_now() { send(SIGKILL); }
  void send(int sig) {
    if (pid_ > 0) ::kill(pid_, sig);
  }
  CliResult wait() {
    CliResult r;
    int status = 0;
    if (pid_ > 0 && ::waitpid(pid_, &status, 0) == pid_) {
      r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    }
    pid_ = -1;
    r.out = read_text(out_path_);
    r.err = read_text(err_path_);
    return r;
  }

 private:
  static int counter() {
    static int n = 0;
    return n++;
  }
  fs::path out_path_, err_path_;
  pid_t pid_ = -1;
};

inline CliResult run_cli(const std::vector<std::string>& args, const fs::path& io_dir,
                         const std::map<std::string, std::string>& env = {}) {
  return Cli(args, env, io_dir).wait();
}

// `tune --device sim` over the grids in <dir>/grids writing into <dir>/<out>, plus `extra` options.
inline std::vector<std::string> sim_tune_args(const fs::path& dir, const std::string& out,
                                              std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"tune",
                                   "--device",
                                   "sim",
                                   "-k",
                                   "jagged_sum",
                                   "--grid-dir",
                                   (dir / "grids").string(),
                                   "--out-dir",
                                   (dir / out).string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Tunes a `shapes`-shape jagged_sum grid on the simulated device into <dir>/out, then rewrites the
// database after `edit` (a foreign kernel, another source hash, ...). Returns its path; the
// rewritten text is in *text.
template <typename Edit>
fs::path tuned_then_edited_database(const fs::path& dir, int shapes, Edit edit, std::string* text) {
  write_grid(dir / "grids", small_jagged_sum_grid(shapes));
  const CliResult tuned = run_cli(sim_tune_args(dir, "out"), dir);
  EXPECT_EQ(tuned.exit_code, 0) << tuned.err;
  const fs::path db = dir / "out/sm90/jagged_sum.json";
  auto j = nlohmann::ordered_json::parse(read_text(db));
  edit(j);
  *text = j.dump(2);
  write_text(db, *text);
  return db;
}

}  // namespace aotune::tuner_test

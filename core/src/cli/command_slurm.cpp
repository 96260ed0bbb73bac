// `kseek slurm submit [eval options] --shards N ...`: one `kseek eval` split over a Slurm job array (one shard per
// task) and a merge job that depends on it. It must never submit shards that could not be merged: every task gets
// the same arguments and the same input seed, and a task fails only when it wrote no record.
#include <unistd.h>

#include <memory>
#include <random>
#include <regex>

#include "commands.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/shell.hpp"
#include "kseek/core/util/subprocess.hpp"

namespace kseek::cli {
namespace {

namespace fs = std::filesystem;

struct SlurmArgs {
  int shards = 0;
  std::string partition;
  int gpus_per_task = 1;
  std::string time_limit;
  bool dry_run = false;
  fs::path dir = "kseek-slurm";
  fs::path out_file;    // default: DIR/merged.json
  fs::path kseek_path;  // default: this executable
  std::vector<std::string> eval_args;
};

bool has_option(const std::vector<std::string>& args, const std::string& name) {
  return std::any_of(args.begin(), args.end(),
                     [&](const std::string& a) { return a == name || a.rfind(name + "=", 0) == 0; });
}

struct Scripts {
  std::string array, merge;
  fs::path array_path, merge_path;
};

// The `#SBATCH` lines both jobs share.
std::string common_directives(const SlurmArgs& args) {
  std::string lines = "#SBATCH --ntasks=1\n";
  if (!args.partition.empty()) lines += fmt::format("#SBATCH --partition={}\n", args.partition);
  if (!args.time_limit.empty()) lines += fmt::format("#SBATCH --time={}\n", args.time_limit);
  return lines;
}

// `kseek` with the global options this command was given, so that the jobs see the same plugins and cache.
std::string kseek_invocation(const GlobalOptions& options, const SlurmArgs& args) {
  std::string line = shell_quote(args.kseek_path.string());
  for (const auto& dir : options.plugin_dirs) line += " --plugin-dir " + shell_quote(fs::absolute(dir).string());
  if (!options.cache_dir.empty()) line += " --cache-dir " + shell_quote(fs::absolute(options.cache_dir).string());
  if (options.no_cache) line += " --no-cache";
  return line;
}

Scripts make_scripts(const GlobalOptions& options, const SlurmArgs& args) {
  const std::string kseek = kseek_invocation(options, args);
  const std::string dir = args.dir.string();
  std::string eval_args;
  for (const auto& a : args.eval_args) eval_args += " " + shell_quote(a);
  constexpr std::string_view kExitMapping =
      "# 0: every scenario passed, 1: a verdict other than PASSED, 3: no GPU could be used. Each wrote a record that\n"
      "# kseek merge reads; anything else (2: bad input, a signal) fails the job.\n"
      "case $rc in 0|1|3) exit 0 ;; *) exit \"$rc\" ;; esac\n";
  Scripts s;
  s.array_path = args.dir / "eval-array.sh";
  s.merge_path = args.dir / "merge.sh";
  s.array = fmt::format(
      "#!/bin/bash\n"
      "# Written by kseek slurm submit: task I of this array runs shard I/{0} of one kseek eval.\n"
      "#SBATCH --job-name=kseek-eval\n"
      "#SBATCH --array=0-{1}\n"
      "{2}{3}"
      "#SBATCH --output={4}/shard-%a.log\n"
      "set -u\n"
      "dir={5}\n"
      "shard=${{SLURM_ARRAY_TASK_ID:?not running as a Slurm array task}}\n"
      "rc=0\n"
      "{6} eval{7} --shard \"$shard/{0}\" --out \"$dir/shard-$shard.json\" || rc=$?\n"
      "{8}",
      args.shards, args.shards - 1, common_directives(args),
      args.gpus_per_task > 0 ? fmt::format("#SBATCH --gpus-per-task={}\n", args.gpus_per_task) : "", dir,
      shell_quote(dir), kseek, eval_args, kExitMapping);
  s.merge = fmt::format(
      "#!/bin/bash\n"
      "# Written by kseek slurm submit: merges the {0} shard records once every array task has succeeded.\n"
      "#SBATCH --job-name=kseek-merge\n"
      "{1}"
      "#SBATCH --output={2}/merge.log\n"
      "#SBATCH --kill-on-invalid-dep=yes\n"
      "set -u\n"
      "dir={3}\n"
      "rc=0\n"
      "{4} merge \"$dir\"/shard-{{0..{5}}}.json --out {6} || rc=$?\n"
      "{7}",
      args.shards, common_directives(args), dir, shell_quote(dir), kseek, args.shards - 1,
      shell_quote(args.out_file.string()), kExitMapping);
  return s;
}

std::optional<fs::path> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "";
  while (!rest.empty()) {
    const auto colon = std::min(rest.find(':'), rest.size());
    const fs::path candidate = fs::path(std::string(rest.substr(0, colon))) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    rest = colon < rest.size() ? rest.substr(colon + 1) : std::string_view{};
  }
  return std::nullopt;
}

// `sbatch --parsable` prints "JOBID" or "JOBID;CLUSTER".
Result<std::string> sbatch(const fs::path& program, const std::vector<std::string>& arguments) {
  std::vector<std::string> argv = {program.string()};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  auto run = run_capturing(argv);
  if (!run) return run.error();
  std::string id = run->out.substr(0, run->out.find_first_of(";\n"));
  if (run->exit_status != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    return make_error(
        fmt::format("{} {} failed (exit {}): {}", program.string(), arguments.back(), run->exit_status, run->out));
  }
  return id;
}

// The global options may follow the subcommand; among eval's options they would reach only the jobs, so they are
// taken out here (the scripts repeat them for the jobs).
std::vector<std::string> take_global_options(const std::vector<std::string>& extras, GlobalOptions& options) {
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < extras.size(); ++i) {
    const std::string& a = extras[i];
    const bool has_value = i + 1 < extras.size();
    if (a == "--json") {
      options.json = true;
    } else if (a == "--no-cache") {
      options.no_cache = true;
    } else if (a == "--plugin-dir" && has_value) {
      options.plugin_dirs.emplace_back(extras[++i]);
    } else if (a.rfind("--plugin-dir=", 0) == 0) {
      options.plugin_dirs.emplace_back(a.substr(13));
    } else if (a == "--cache-dir" && has_value) {
      options.cache_dir = extras[++i];
    } else if (a.rfind("--cache-dir=", 0) == 0) {
      options.cache_dir = a.substr(12);
    } else {
      rest.push_back(a);
    }
  }
  return rest;
}

int run_submit(const GlobalOptions& options, SlurmArgs& args) {
  if (args.shards < 1) return fail(options, kExitUsage, "ERROR", "--shards must be at least 1");
  if (has_option(args.eval_args, "--shard")) {
    return fail(options, kExitUsage, "ERROR",
                "--shard is set by kseek slurm submit for each shard; use --dir and --out for the records");
  }
  if (!args.time_limit.empty() &&
      !std::regex_match(args.time_limit, std::regex(R"(((\d+-)?\d{1,2}:)?\d{1,2}:\d{2}|\d+)"))) {
    return fail(options, kExitUsage, "ERROR",
                fmt::format("--time '{}': expected [D-]HH:MM:SS, MM:SS or minutes", args.time_limit));
  }
  args.dir = fs::absolute(args.dir).lexically_normal();
  if (args.dir.string().find_first_of(" \t\n'\"\\$`") != std::string::npos) {
    return fail(options, kExitUsage, "ERROR",
                fmt::format("--dir '{}': #SBATCH lines cannot carry spaces or quotes", args.dir.string()));
  }
  args.out_file = args.out_file.empty() ? args.dir / "merged.json" : fs::absolute(args.out_file).lexically_normal();
  if (args.kseek_path.empty()) {
    auto self = self_executable();
    if (!self) return fail(options, kExitUsage, "ERROR", self.error().message + " (give --kseek PATH)");
    args.kseek_path = *self;
  }
  // Every shard must draw the same inputs, and the merge checks it: one seed for all, drawn here when not given.
  if (!has_option(args.eval_args, "--input-seed")) {
    std::random_device random;
    const std::uint64_t seed = (static_cast<std::uint64_t>(random()) << 20) ^ random() ^ 1u;
    args.eval_args.insert(args.eval_args.end(), {"--input-seed", std::to_string(seed)});
  }
  if (args.gpus_per_task > 1 && !has_option(args.eval_args, "--gpus")) {
    args.eval_args.insert(args.eval_args.end(), {"--gpus", "all"});  // each task's GPUs at once
  }
  // A candidate given as a relative path must still be found from the job's working directory.
  for (auto& a : args.eval_args) {
    if (a.size() > 3 && a.rfind("-", 0) != 0 && a.ends_with(".cu") && fs::exists(a)) a = fs::absolute(a).string();
  }
  const Scripts scripts = make_scripts(options, args);
  nlohmann::json records = nlohmann::json::array();
  for (int i = 0; i < args.shards; ++i) records.push_back((args.dir / fmt::format("shard-{}.json", i)).string());

  if (args.dry_run) {
    if (options.json) {
      print_json(
          {{"status", "DRY_RUN"},
           {"shards", args.shards},
           {"records", records},
           {"merged_record", args.out_file.string()},
           {"scripts", {{scripts.array_path.string(), scripts.array}, {scripts.merge_path.string(), scripts.merge}}}});
    } else {
      std::cout << "# ---- " << scripts.array_path.string() << "\n" << scripts.array;
      std::cout << "# ---- " << scripts.merge_path.string() << "\n" << scripts.merge;
      std::cout << fmt::format("# ---- submit with: sbatch --parsable {} && sbatch --dependency=afterok:JOBID {}\n",
                               scripts.array_path.string(), scripts.merge_path.string());
    }
    return kExitOk;
  }
  const auto program = find_on_path("sbatch");
  if (!program) {
    return fail(options, kExitUsage, "ERROR",
                "sbatch was not found on PATH: kseek slurm submit needs the Slurm client commands on this machine "
                "(--dry-run prints the job scripts without them)");
  }
  std::error_code ec;
  fs::create_directories(args.dir, ec);
  for (const auto& [path, text] :
       {std::pair{scripts.array_path, scripts.array}, std::pair{scripts.merge_path, scripts.merge}}) {
    if (auto written = write_file_atomically(path, text); !written)
      return fail(options, kExitUsage, "ERROR", written.error().message);
    fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add, ec);
  }
  auto array_job = sbatch(*program, {"--parsable", scripts.array_path.string()});
  if (!array_job) return fail(options, kExitUsage, "ERROR", array_job.error().message);
  auto merge_job = sbatch(*program, {"--parsable", "--dependency=afterok:" + *array_job, scripts.merge_path.string()});
  if (!merge_job) {
    return fail(options, kExitUsage, "ERROR",
                fmt::format("array job {} was submitted, but the merge job was not: {}", *array_job,
                            merge_job.error().message));
  }
  if (options.json) {
    print_json({{"status", "SUBMITTED"},
                {"array_job", *array_job},
                {"merge_job", *merge_job},
                {"shards", args.shards},
                {"records", records},
                {"merged_record", args.out_file.string()},
                {"scripts", {scripts.array_path.string(), scripts.merge_path.string()}}});
  } else {
    std::cout << fmt::format(
        "submitted array job {} ({} shards, records {}/shard-I.json) and merge job {} (after "
        "the array succeeds, writes {})\n",
        *array_job, args.shards, args.dir.string(), *merge_job, args.out_file.string());
  }
  return kExitOk;
}

}  // namespace

void register_slurm_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto args = std::make_shared<SlurmArgs>();
  auto* slurm = app.add_subcommand("slurm", "Run kseek eval on a Slurm cluster");
  slurm->require_subcommand(1);
  auto* submit = slurm->add_subcommand(
      "submit",
      "Submit kseek eval as a job array of --shards N shards and a dependent kseek merge job; every other "
      "option (FILE, --plugin, --set, --input-seed...) is passed to each shard's kseek eval");
  submit->allow_extras();
  submit->fallthrough(false);  // unknown options are eval's: kept here, not refused by the top level
  submit->add_option("--shards", args->shards, "Number of shards (array tasks)")->required();
  submit->add_option("--partition", args->partition, "Slurm partition");
  submit
      ->add_option("--gpus-per-task", args->gpus_per_task,
                   "GPUs per array task (0: none; >1: the shard runs "
                   "kseek eval --gpus all)")
      ->capture_default_str();
  submit->add_option("--time", args->time_limit, "Time limit of each job")->type_name("HH:MM:SS");
  submit->add_option("--dir", args->dir, "Folder for the scripts, logs and shard records")->capture_default_str();
  submit->add_option("--out", args->out_file, "The merged record (default: DIR/merged.json)");
  submit->add_option("--kseek", args->kseek_path, "The kseek the jobs run (default: this one)");
  submit->add_flag("--dry-run", args->dry_run, "Print the job scripts instead of submitting them");
  submit->callback([&options, &exit_code, args, submit] {
    args->eval_args = take_global_options(submit->remaining(), options);
    exit_code = run_submit(options, *args);
  });
}

}  // namespace kseek::cli

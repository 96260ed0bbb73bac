// `kseek merge RECORD... [--out FILE]`: the shard records of one evaluation (`kseek eval --shard I/N`) as one record.
// It must never merge records that are not parts of one evaluation, nor leave a scenario out or count one twice:
// every such problem is an error naming the files.
#include <memory>

#include "commands.hpp"
#include "kseek/core/eval/evaluator.hpp"
#include "kseek/core/util/files.hpp"

namespace kseek::cli {
namespace {

struct MergeArgs {
  std::vector<std::filesystem::path> records;
  std::filesystem::path out_file;
};

int run_merge(const GlobalOptions& options, const MergeArgs& args) {
  std::vector<RecordFile> shards;
  for (const auto& path : args.records) {
    auto text = read_file(path);
    if (!text) return fail(options, kExitUsage, "ERROR", text.error().message);
    try {
      shards.push_back({path.string(), nlohmann::json::parse(*text)});
    } catch (const std::exception& e) {
      return fail(options, kExitUsage, "ERROR", fmt::format("{}: not JSON ({})", path.string(), e.what()));
    }
  }
  auto merged = merge_shard_records(shards);
  if (!merged) return fail(options, kExitUsage, "ERROR", merged.error().message);
  if (!args.out_file.empty()) {
    if (auto written = write_file_atomically(args.out_file, merged->dump(2) + "\n"); !written) {
      return fail(options, kExitUsage, "ERROR", written.error().message);
    }
  }
  const std::string status = merged->value("status", "");
  if (options.json) {
    print_json(*merged);
  } else {
    const auto& summary = (*merged)["summary"];
    std::string counts;
    const nlohmann::json status_counts = summary.value("status_counts", nlohmann::json::object());
    for (const auto& [name, n] : status_counts.items()) {
      counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n.get<int>(), name);
    }
    std::cout << fmt::format("merged {} shards of {}: {}, {} scenarios ({})\n", shards.size(),
                             (*merged)["plugin"].value("id", ""), status, summary.value("scenarios", 0), counts);
    if (summary.contains("geomean")) {
      const auto& g = summary["geomean"];
      std::cout << fmt::format("geomean {:.4f} [{:.4f}, {:.4f}] over {} scenarios\n", g.value("value", 1.0),
                               g.value("ci_low", 1.0), g.value("ci_high", 1.0), g.value("scenarios", 0));
    }
    if (merged->contains("message")) std::cout << merged->value("message", "") << "\n";
    if (!args.out_file.empty()) std::cout << "written to " << args.out_file.string() << "\n";
  }
  if (status == "NEEDS_GPU") return kExitNeedsGpu;
  if (status != "COMPLETE") return kExitVerdict;
  for (const auto& r : (*merged)["scenarios"]) {
    if (r.value("status", "") != "PASSED") return kExitVerdict;
  }
  return kExitOk;
}

}  // namespace

void register_merge_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto args = std::make_shared<MergeArgs>();
  auto* command = app.add_subcommand("merge", "Merge the shard records of one evaluation (kseek eval --shard I/N)");
  command->add_option("RECORD", args->records, "Shard records, one per shard")->required()->check(CLI::ExistingFile);
  command->add_option("--out", args->out_file, "Write the merged record to this file (atomically)");
  command->callback([&options, &exit_code, args] { exit_code = run_merge(options, *args); });
}

}  // namespace kseek::cli

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
  const auto record = evaluation_record_from_json(*merged);
  if (!record) return fail(options, kExitUsage, "ERROR", "the merged record cannot be read: " + record.error().message);
  if (options.json) {
    print_json(*merged);
  } else {
    const RecordSummary summary = record->summary.value_or(RecordSummary{});
    std::string counts;
    for (const auto& [name, n] : summary.status_counts)
      counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, name);
    std::cout << fmt::format("merged {} shards of {}: {}, {} scenarios ({})\n", shards.size(), record->plugin.id,
                             to_string(record->status), summary.scenarios, counts);
    if (summary.geomean) {
      const auto& g = *summary.geomean;
      std::cout << fmt::format("geomean {:.4f} [{:.4f}, {:.4f}] over {} scenarios\n", g.value, g.ci_low, g.ci_high,
                               g.scenarios);
    }
    if (record->message) std::cout << *record->message << "\n";
    if (!args.out_file.empty()) std::cout << "written to " << args.out_file.string() << "\n";
  }
  if (record->status == RecordStatus::kNeedsGpu) return kExitNeedsGpu;
  if (record->status != RecordStatus::kComplete || !record->all_passed()) return kExitVerdict;
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

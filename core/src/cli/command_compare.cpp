// `kseek compare A.json B.json`: is candidate B faster than candidate A, scenario by scenario? Reads two evaluation
// records (`kseek eval FILE --out ...`) and prints the comparison of record_comparison.hpp.
// It must never write a record or touch a campaign: it reads two files and prints.
#include <memory>

#include "commands.hpp"
#include "kseek/core/eval/record_comparison.hpp"
#include "kseek/core/util/files.hpp"

namespace kseek::cli {
namespace {

struct CompareArgs {
  std::filesystem::path a;
  std::filesystem::path b;
  double machine_allowance = kDefaultMachineAllowance;
};

Result<EvaluationRecord> read_record(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text) return make_error(text.error().message);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(*text);
  } catch (const std::exception& e) {
    return make_error(fmt::format("{}: not JSON ({})", path.string(), e.what()));
  }
  auto record = evaluation_record_from_json(doc);
  if (!record)
    return make_error(fmt::format("{}: not an evaluation record: {}", path.string(), record.error().message));
  return record;
}

const char* verdict_label(RowVerdict verdict) {
  switch (verdict) {
    case RowVerdict::kBFaster: return "B faster";
    case RowVerdict::kBSlower: return "B slower";
    case RowVerdict::kWithinMachineSpread: return "within the two GPUs' spread";
    case RowVerdict::kUnclear: break;
  }
  return "";
}

nlohmann::json to_json(const RecordComparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& s : c.scenarios) {
    nlohmann::json row = {{"scenario", s.scenario},
                          {"name", s.name},
                          {"status_a", to_string(s.status_a)},
                          {"status_b", to_string(s.status_b)},
                          {"timed", s.timed}};
    if (s.timed) {
      row.update({{"candidate_ms_a", s.candidate_ms_a},
                  {"candidate_ms_b", s.candidate_ms_b},
                  {"speedup", s.speedup},
                  {"seed_drift", s.seed_drift},
                  {"ratio_of_ratios", s.ratio_of_ratios},
                  {"low", s.low},
                  {"high", s.high},
                  {"verdict", to_string(s.verdict)}});
    }
    rows.push_back(row);
  }
  return {{"plugin", c.plugin},
          {"scenarios", rows},
          {"only_in_a", c.only_in_a},
          {"only_in_b", c.only_in_b},
          {"timed", c.timed},
          {"geomean_ratio_of_ratios", c.geomean_ratio_of_ratios},
          {"geomean_speedup", c.geomean_speedup},
          {"b_faster", c.b_faster},
          {"b_slower", c.b_slower},
          {"notes", c.notes},
          {"across_machines", c.across_machines},
          {"machine_allowance", c.machine_allowance},
          {"within_machine_spread", c.within_machine_spread}};
}

int run_compare(const GlobalOptions& options, const CompareArgs& args) {
  auto a = read_record(args.a);
  if (!a) return fail(options, kExitUsage, "ERROR", a.error().message);
  auto b = read_record(args.b);
  if (!b) return fail(options, kExitUsage, "ERROR", b.error().message);
  auto c = compare_records(*a, *b, CompareOptions{args.machine_allowance});
  if (!c) return fail(options, kExitUsage, "ERROR", c.error().message);
  if (options.json) {
    print_json(to_json(*c));
    return kExitOk;
  }
  std::cout << fmt::format("A {} ({})\nB {} ({})\n", args.a.string(), a->candidate.sha256.substr(0, 12),
                           args.b.string(), b->candidate.sha256.substr(0, 12));
  std::cout << fmt::format("{:<9} {:<8} {:<8} {:>10} {:>10} {:>8} {:>10}  {:<19} {}\n", "scenario", "A", "B", "A ms",
                           "B ms", "speedup", "seed drift", "B/A ratios (95%)", "");
  for (const auto& s : c->scenarios) {
    if (!s.timed) {
      std::cout << fmt::format("{:<9} {:<8} {:<8} {:>10} {:>10} {:>8} {:>10}  {:<19}\n", s.scenario,
                               to_string(s.status_a), to_string(s.status_b), "-", "-", "-", "-", "not timed by both");
      continue;
    }
    const char* mark = verdict_label(s.verdict);
    std::cout << fmt::format("{:<9} {:<8} {:<8} {:>10.4f} {:>10.4f} {:>8.3f} {:>10.3f}  {:.3f} [{:.3f}, {:.3f}]  {}\n",
                             s.scenario, to_string(s.status_a), to_string(s.status_b), s.candidate_ms_a,
                             s.candidate_ms_b, s.speedup, s.seed_drift, s.ratio_of_ratios, s.low, s.high, mark);
  }
  if (c->timed > 0) {
    std::cout << fmt::format("geomean over {} timed scenarios: B/A ratios {:.4f}, raw speedup {:.4f}; ", c->timed,
                             c->geomean_ratio_of_ratios, c->geomean_speedup);
    if (c->across_machines && c->machine_allowance > 0) {
      std::cout << fmt::format(
          "B faster on {}, slower on {} (95% intervals clear of [{:.4f}, {:.4f}], machine allowance {}), within the "
          "two GPUs' spread on {}\n",
          c->b_faster, c->b_slower, 1 / (1 + c->machine_allowance), 1 + c->machine_allowance, c->machine_allowance,
          c->within_machine_spread);
    } else {
      std::cout << fmt::format("B faster on {}, slower on {} (95% intervals clear of 1)\n", c->b_faster, c->b_slower);
    }
  }
  if (!c->only_in_a.empty()) std::cout << "only in A: " << fmt::format("{}", fmt::join(c->only_in_a, ", ")) << "\n";
  if (!c->only_in_b.empty()) std::cout << "only in B: " << fmt::format("{}", fmt::join(c->only_in_b, ", ")) << "\n";
  for (const auto& note : c->notes) std::cout << "note: " << note << "\n";
  return kExitOk;
}

}  // namespace

void register_compare_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto args = std::make_shared<CompareArgs>();
  auto* command = app.add_subcommand(
      "compare", "Compare two evaluation records scenario by scenario: is candidate B faster than candidate A?");
  command->add_option("A", args->a, "The first record (kseek eval ... --out A.json)")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("B", args->b, "The second record")->required()->check(CLI::ExistingFile);
  command
      ->add_option("--machine-allowance", args->machine_allowance,
                   "When the records come from two GPUs (different uuids or models): a row is faster or slower only "
                   "when its interval clears [1/(1+A), 1+A]; 0 labels on the runs' own intervals; 0 <= A < 1")
      ->capture_default_str();
  command->callback([&options, &exit_code, args] { exit_code = run_compare(options, *args); });
}

}  // namespace kseek::cli

// A campaign's state as `kseek status` shows it: best and latest evaluation, trend, gate, open events, the log's
// counts and damage, and what its signatures can show. One type for the people's table, `--json`, the MCP tool and
// the session-start hook; its JSON form is `to_json`. It must never read a file: campaign_engine fills it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kseek {

struct CampaignStatus {
  struct Best {
    int evaluation = 0;  // 0: the seed (no evaluation beyond the noise yet)
    double geomean = 1.0;
  };
  struct Latest {
    int evaluation = 0;
    std::string time;
    std::string status;  // record status: COMPLETE, BUILD_FAILED, NEEDS_GPU
    bool all_passed = false;
    std::optional<double> geomean, geomean_low, geomean_high;
    std::string failing;  // the first failing scenarios, comma-separated ("" when none)
  };
  struct TrendPoint {
    int evaluation = 0;
    std::optional<double> geomean;  // none: untimed
    bool all_passed = false;
  };
  // What the stagnation events count from: a new best geomean, or a goal term met for the first time or moved toward
  // its target beyond the noise (docs/campaigns.md).
  struct LastProgress {
    int evaluation = 0;  // 0: none since the start
    std::string what;    // in words, as the stagnation event names it
    int timed_evaluations_since = 0;
  };
  struct Gate {
    bool holds = false;
    int evaluation = 0;  // the evaluation used as evidence (0: none)
    std::vector<std::string> unmet;
    std::string candidate_sha256;
  };
  struct OpenEvent {
    std::string event;
    std::string detail;
    bool logged = false;  // in the log and unanswered (else pending: due, not yet logged)
  };
  struct DamagedLine {
    int line = 0;
    std::string reason;
  };
  struct Signatures {
    bool verified = false;           // the records could be verified here
    std::optional<std::string> key;  // where the key was found: "per-user", "in-campaign"
    std::string note;                // what such a key means, or why nothing could be verified
  };

  std::string campaign;  // the campaign folder
  std::string plugin, set, goal;
  bool questions = true;
  int evaluations = 0;
  Best best;
  std::optional<Latest> latest;
  std::vector<TrendPoint> trend;  // the last eight evaluations
  int timed_evaluations_since_best = 0;
  LastProgress last_progress;
  Gate gate;
  std::vector<OpenEvent> open_events;
  std::map<std::string, int> record_counts;  // log records by type
  std::vector<DamagedLine> damaged_lines;
  Signatures signatures;
};

// The `kseek status --json` document (also the MCP `status` tool's): every field above under its own name.
nlohmann::json to_json(const CampaignStatus& status);

}  // namespace kseek

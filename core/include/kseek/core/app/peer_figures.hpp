// Peer figures: a campaign's peer command (campaign.json "peer_figures") run right after one of its evaluations, on the
// same machine, and what it measured read into the record (docs/campaigns.md, "Peer figures in the same run").
// It must never fail an evaluation: every problem of the command (not found, non-zero exit, too slow, a document it
// did not write or that does not parse) becomes PeerFigures::error, and the evaluation is logged as it is.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/eval/evaluation_record.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek::app {

// The environment variable that names the file the command writes its document to.
inline constexpr const char* kPeerFiguresFileVariable = "KSEEK_PEER_FIGURES";

// Runs `peers.command` in `campaign_dir` with the current environment plus $KSEEK_PEER_FIGURES, under its timeout
// (its process group is ended when the time is up), and reads the document it wrote.
PeerFigures measure_peer_figures(const PeerFiguresCommand& peers, const std::filesystem::path& campaign_dir);

// The document a peer command writes: {"rows": [{"scenario": "H01", "cudnn_tflops": 611.0, ...}, ...], ...}. Each
// row needs a "scenario" string and keeps its finite numbers (other values are ignored); the document's top-level
// strings are kept as `about`. An error names what is wrong (no rows, a row without a scenario, a scenario twice).
Result<void> read_peer_document(const nlohmann::json& document, PeerFigures& figures);

}  // namespace kseek::app

// The peer command of a campaign, run after an evaluation, and its document read into the record (see the header).
// It must never use a shell, never leave the command's processes running, and never turn a peer failure into an
// evaluation failure.
#include "kseek/core/app/peer_figures.hpp"

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kseek/core/campaign/run_process.hpp"
#include "kseek/core/util/files.hpp"

extern char** environ;

namespace kseek::app {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<std::string> environment_with(const std::string& entry) {
  std::vector<std::string> out;
  const std::string key = entry.substr(0, entry.find('=') + 1);
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::string_view(*e).rfind(key, 0) != 0) out.emplace_back(*e);
  }
  out.push_back(entry);
  return out;
}

// The last non-empty line of what the command printed, for an error message that says what went wrong.
std::string last_line(const fs::path& output) {
  auto text = read_file(output);
  if (!text) return "";
  std::string_view rest = *text;
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == '\r' || rest.back() == ' ')) rest.remove_suffix(1);
  const auto newline = rest.rfind('\n');
  std::string line(newline == std::string_view::npos ? rest : rest.substr(newline + 1));
  if (line.size() > 300) line = line.substr(0, 300) + "...";
  return line;
}

}  // namespace

Result<void> read_peer_document(const json& document, PeerFigures& figures) {
  if (!document.is_object())
    return make_error(fmt::format("the document is a {}, not a JSON object", document.type_name()));
  const auto rows = document.find("rows");
  if (rows == document.end() || !rows->is_array()) return make_error("the document has no \"rows\" array");
  if (rows->empty()) return make_error("the document's \"rows\" is empty");
  for (std::size_t i = 0; i < rows->size(); ++i) {
    const json& row = (*rows)[i];
    const auto scenario = row.is_object() ? row.find("scenario") : row.end();
    if (!row.is_object() || scenario == row.end() || !scenario->is_string() || scenario->get<std::string>().empty()) {
      return make_error(fmt::format("rows[{}] has no \"scenario\" string", i));
    }
    const std::string id = scenario->get<std::string>();
    if (figures.scenarios.contains(id))
      return make_error(fmt::format("rows[{}]: scenario \"{}\" appears twice", i, id));
    auto& kept = figures.scenarios[id];
    for (const auto& [name, value] : row.items()) {
      if (name != "scenario" && value.is_number() && std::isfinite(value.get<double>()))
        kept[name] = value.get<double>();
    }
  }
  for (const auto& [name, value] : document.items()) {
    if (value.is_string()) figures.about[name] = value.get<std::string>();
  }
  return Ok{};
}

PeerFigures measure_peer_figures(const PeerFiguresCommand& peers, const fs::path& campaign_dir) {
  PeerFigures figures;
  figures.command = peers.command;
  const auto started = std::chrono::steady_clock::now();
  auto fail = [&](std::string why) {
    figures.error = std::move(why);
    figures.scenarios.clear();
    figures.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return figures;
  };
  ScratchFolder scratch("kseek-peers");
  if (scratch.path().empty()) return fail("cannot create a temporary folder for the peer command's document");
  const fs::path document_file = scratch.path() / "peer-figures.json";
  const fs::path output_file = scratch.path() / "output.txt";

  AgentLaunch launch;
  launch.argv = peers.command;
  launch.environment = environment_with(fmt::format("{}={}", kPeerFiguresFileVariable, document_file.string()));
  launch.working_directory = campaign_dir;
  launch.output_file = output_file;
  auto process = AgentProcess::start(launch);
  if (!process)
    return fail(fmt::format("the peer command '{}' could not start: {}", fmt::join(peers.command, " "),
                            process.error().message));
  const double timeout = peers.timeout_seconds.value_or(kDefaultPeerTimeoutSeconds);
  const auto deadline =
      started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout));
  const AgentEnd end = process->wait(deadline, nullptr, nullptr, std::chrono::seconds(5));
  const std::string said = last_line(output_file);
  const std::string tail = said.empty() ? "" : fmt::format(" (its last line: {})", said);
  switch (end.reason) {
    case AgentEnd::Reason::kDeadline:
      return fail(
          fmt::format("the peer command did not finish within {:g} s (campaign.json "
                      "peer_figures.timeout_seconds){}",
                      timeout, tail));
    case AgentEnd::Reason::kSignalled:
      return fail(fmt::format("the peer command was killed by signal {}{}", end.code, tail));
    case AgentEnd::Reason::kStopRequested: return fail("the peer command was stopped");
    case AgentEnd::Reason::kExited:
      if (end.code != 0) return fail(fmt::format("the peer command exited with code {}{}", end.code, tail));
      break;
  }
  auto text = read_file(document_file);
  if (!text) {
    return fail(fmt::format("the peer command wrote no document to ${}{}", kPeerFiguresFileVariable, tail));
  }
  json document;
  try {
    document = json::parse(*text);
  } catch (const json::exception& e) {
    return fail(fmt::format("the peer command's document is not valid JSON: {}", e.what()));
  }
  if (auto read = read_peer_document(document, figures); !read) {
    return fail("the peer command's document: " + read.error().message);
  }
  figures.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return figures;
}

}  // namespace kseek::app

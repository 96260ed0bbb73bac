// `kseek mcp [--campaign DIR]`: the campaign verbs (eval, status, ask, claim, gate) served to a coding agent as MCP
// tools over stdio. It must never let anything but protocol messages reach stdout: the real stdout is kept for the
// protocol and file descriptor 1 is pointed at stderr for everything else (plugins, libraries, child processes).
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>

#include "campaign_actions.hpp"
#include "commands.hpp"
#include "kseek/core/mcp/mcp_server.hpp"
#include "kseek/sdk/version.hpp"

namespace kseek::cli {
namespace {

// isError means "the tool could not do its job". An evaluation that completed is a result even when scenarios
// FAILED (a wrong kernel is an outcome); one that did not complete (build failure, constraint violation, no GPU,
// bad campaign) is an error. For the other verbs any non-zero exit is one (e.g. gate: the goal does not hold).
// The text opens with one line a model can act on, then the document as JSON.
mcp::ToolResult to_tool_result(const std::string& verb, const ActionResult& action) {
  const nlohmann::json& doc = action.document;
  mcp::ToolResult result;
  result.structured = doc;
  result.is_error = action.exit_code != kExitOk;
  if (verb == "eval" && action.exit_code == kExitVerdict && doc.value("status", "") == "COMPLETE") {
    result.is_error = false;
  }
  std::string headline;
  if (const auto error = doc.find("error"); error != doc.end() && error->is_string()) {
    headline = error->get<std::string>();
  } else if (result.is_error) {
    headline = fmt::format("{}: {}", verb, doc.value("status", "failed"));
    if (const auto unmet = doc.find("unmet"); unmet != doc.end() && unmet->is_array() && !unmet->empty()) {
      std::string terms;
      for (const auto& term : *unmet) {
        terms += (terms.empty() ? "" : "; ") + (term.is_string() ? term.get<std::string>() : term.dump());
      }
      headline += fmt::format("; unmet: {}", terms);
    } else if (const auto message = doc.find("message"); message != doc.end() && message->is_string()) {
      headline += fmt::format(": {}", message->get<std::string>());
    }
  }
  result.text =
      (headline.empty() ? "" : headline + "\n") + doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  return result;
}

int run_mcp(const GlobalOptions& options, const std::filesystem::path& campaign_dir) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::absolute(campaign_dir, ec);
  const std::filesystem::path campaign = ec ? campaign_dir : dir;

  // Keep the real stdout for the protocol; everything else written to fd 1 from now on lands on stderr.
  std::cout.flush();
  std::fflush(stdout);
  // Close-on-exec: an evaluation process must not hold the client's pipe open.
  const int protocol_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (protocol_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::cerr << "kseek mcp: cannot set up stdout for the protocol\n";
    return kExitUsage;
  }
  std::unique_ptr<FILE, int (*)(FILE*)> protocol(::fdopen(protocol_fd, "w"), std::fclose);
  if (!protocol) {
    ::close(protocol_fd);
    std::cerr << "kseek mcp: cannot open the protocol stream\n";
    return kExitUsage;
  }
  std::signal(SIGPIPE, SIG_IGN);  // a client that went away is noticed as a failed write, not a killed server

  std::atomic<bool> write_failed = false;
  const auto write_line = [&](const std::string& line) {
    if (write_failed) return;
    if (std::fwrite(line.data(), 1, line.size(), protocol.get()) != line.size() ||
        std::fputc('\n', protocol.get()) == EOF || std::fflush(protocol.get()) != 0) {
      write_failed = true;
      std::cerr << "kseek mcp: the client stopped reading; replies are dropped until stdin closes\n";
    }
  };

  mcp::CampaignToolHandlers handlers;
  handlers.eval = [&options, campaign](const nlohmann::json& args) {
    CampaignEvalOptions eval;
    eval.correctness_only = args.value("correctness_only", false);
    return to_tool_result("eval", campaign_eval(options, campaign, eval));
  };
  handlers.status = [&options, campaign](const nlohmann::json&) {
    return to_tool_result("status", campaign_status_action(options, campaign));
  };
  handlers.ask = [&options, campaign](const nlohmann::json& args) {
    return to_tool_result("ask", campaign_ask(options, campaign, args.value("event", ""), "mcp"));
  };
  handlers.claim = [&options, campaign](const nlohmann::json& args) {
    return to_tool_result("claim", campaign_claim(options, campaign, args.at("kind").get<std::string>(),
                                                  args.at("text").get<std::string>(), "mcp"));
  };
  handlers.gate = [&options, campaign](const nlohmann::json&) {
    return to_tool_result("gate", campaign_gate(options, campaign, "mcp"));
  };

  mcp::ServerInfo info;
  info.name = "kseek";
  info.version = KSEEK_SDK_VERSION;
  info.instructions = mcp::campaign_instructions();
  mcp::McpServer server(std::move(info), mcp::campaign_tools(std::move(handlers)));
  std::cerr << "kseek mcp: serving campaign " << campaign.string() << " on stdio\n";
  server.serve(std::cin, write_line);
  std::cerr << "kseek mcp: stdin closed, exiting\n";
  return kExitOk;
}

}  // namespace

void register_mcp_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto dir = std::make_shared<std::filesystem::path>(".");
  auto* command = app.add_subcommand("mcp", "Serve the campaign tools to a coding agent (MCP over stdio)");
  command->add_option("--campaign", *dir, "Campaign directory (default: the current directory)")->type_name("DIR");
  command->callback([&options, &exit_code, dir] { exit_code = run_mcp(options, *dir); });
}

}  // namespace kseek::cli

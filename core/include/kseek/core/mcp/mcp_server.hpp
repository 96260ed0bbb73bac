// The MCP protocol engine behind `kseek mcp`: JSON-RPC 2.0 over newline-delimited stdio, the initialize handshake,
// tools/list and tools/call with injected handlers. It must never write to stdout itself nor let a tool's failure
// (or exception) end the session: every reply goes through the caller's line sink.
#pragma once

#include <chrono>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kseek::mcp {

// Protocol revisions we speak, newest first; an unknown client version is answered with the first.
inline constexpr std::string_view kSupportedProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

// JSON-RPC 2.0 error codes (protocol errors; a tool that ran and failed is a result with isError instead).
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

// What a tool handler returns. `structured` becomes structuredContent (an object), `text` the text block; an empty
// text is filled with the compact JSON of `structured`, for clients that ignore structuredContent.
struct ToolResult {
  bool is_error = false;
  nlohmann::json structured;
  std::string text;
};

// Receives the arguments already checked against the tool's input schema. May throw: the server turns the
// exception into an isError result.
using ToolHandler = std::function<ToolResult(const nlohmann::json& arguments)>;

// The input schema is JSON Schema (2020-12) limited to what the server validates itself: an object with
// `properties` (each {type: boolean|string|integer|number, enum?, minLength?}), `required` and
// `additionalProperties: false`.
struct ToolDescriptor {
  std::string name;
  std::string title;
  std::string description;
  nlohmann::json input_schema;
  ToolHandler handler;
};

struct ServerInfo {
  std::string name = "kseek";
  std::string version;
  std::string instructions;  // shown to the model by some clients; keep it well under 2 KB
};

// The five campaign tools (eval, status, ask, claim, gate) with our schemas and descriptions; each handler is
// called with validated arguments. A missing handler makes its tool answer isError, never crash.
struct CampaignToolHandlers {
  ToolHandler eval;    // {correctness_only?: bool}
  ToolHandler status;  // {}
  ToolHandler ask;     // {event?: one of kCampaignEvents}
  ToolHandler claim;   // {kind: "limit"|"done", text: string}
  ToolHandler gate;    // {}
};
std::vector<ToolDescriptor> campaign_tools(CampaignToolHandlers handlers);
std::string campaign_instructions();

struct ServeOptions {
  // While a tools/call that carries `_meta.progressToken` runs, a notifications/progress is sent this often so that
  // clients with an idle timeout keep waiting. Zero: never.
  std::chrono::milliseconds progress_interval{std::chrono::seconds(15)};
};

class McpServer {
 public:
  McpServer(ServerInfo info, std::vector<ToolDescriptor> tools);

  // One received line in, the reply line out (compact JSON, no newline), or nothing for a notification, a response
  // or a blank line. Tool calls run inline. Never throws.
  std::optional<std::string> handle_line(std::string_view line);

  // Reads `in` line by line until EOF and writes every reply through `write_line` (one call per message, no
  // newline; calls are serialised). Tool calls run one at a time on a worker thread so that ping, tools/list and
  // notifications/cancelled are still handled while an evaluation runs; a cancelled call's reply is dropped. At EOF
  // the calls already received are finished and answered, then it returns.
  void serve(std::istream& in, const std::function<void(const std::string&)>& write_line,
             const ServeOptions& options = {});

  const std::vector<ToolDescriptor>& tools() const { return tools_; }

 private:
  struct Routed;  // what one line asks for: an immediate reply, nothing, or a deferred tool call
  Routed route(std::string_view line);
  void route_method(const std::string& method, const nlohmann::json& id, const nlohmann::json& params, Routed& routed);
  void route_tool_call(const nlohmann::json& id, const nlohmann::json& params, Routed& routed);
  nlohmann::json initialize_result(const nlohmann::json& params) const;
  nlohmann::json call_tool(const nlohmann::json& id, const ToolDescriptor& tool, const nlohmann::json& arguments);

  ServerInfo info_;
  std::vector<ToolDescriptor> tools_;
};

// Checks `arguments` against the schema subset above; the message names the argument and both sides.
std::optional<std::string> validate_arguments(const nlohmann::json& schema, const nlohmann::json& arguments);

}  // namespace kseek::mcp

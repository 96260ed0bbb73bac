// The MCP protocol engine: envelope checks, method dispatch, argument validation, the campaign tool catalogue and
// the stdio serving loop. It must never write to stdout or let an exception from a tool or a malformed line escape.
#include "kseek/core/mcp/mcp_server.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "kseek/core/campaign/campaign_engine.hpp"

namespace kseek::mcp {

using nlohmann::json;

struct McpServer::Routed {
  std::optional<json> reply;             // to send now
  std::optional<json> cancel_id;         // notifications/cancelled: the request it cancels
  const ToolDescriptor* tool = nullptr;  // non-null: a tools/call to run
  json id;
  json arguments;
  json progress_token;  // null: the call asked for no progress
};

namespace {

// Compact, one line, and never throws on invalid UTF-8 (a compile log may carry any byte).
std::string dump_line(const json& message) { return message.dump(-1, ' ', false, json::error_handler_t::replace); }

json error_reply(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json result_reply(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

bool is_valid_id(const json& id) { return id.is_string() || id.is_number(); }

std::string tool_names(const std::vector<ToolDescriptor>& tools) {
  std::string names;
  for (const auto& t : tools) names += (names.empty() ? "" : ", ") + t.name;
  return names;
}

std::string_view strip_line_end(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  return line;
}

bool is_blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

bool matches_type(const json& value, const std::string& type) {
  if (type == "boolean") return value.is_boolean();
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  return true;  // a type this validator does not know is not enforced
}

}  // namespace

std::optional<std::string> validate_arguments(const json& schema, const json& arguments) {
  if (!arguments.is_object()) return fmt::format("arguments must be an object, got {}", arguments.type_name());
  static const json kNoProperties = json::object();
  const auto found_properties = schema.find("properties");
  const json& properties =
      found_properties != schema.end() && found_properties->is_object() ? *found_properties : kNoProperties;
  const auto additional = schema.find("additionalProperties");
  const bool closed = additional != schema.end() && additional->is_boolean() && !additional->get<bool>();

  for (const auto& [key, value] : arguments.items()) {
    const auto property = properties.find(key);
    if (property == properties.end()) {
      if (!closed) continue;
      std::string expected;
      for (const auto& [name, unused] : properties.items()) expected += (expected.empty() ? "" : ", ") + name;
      return fmt::format("unknown argument '{}'; this tool takes {}", key,
                         expected.empty() ? std::string("no arguments") : expected);
    }
    if (const auto type = property->find("type");
        type != property->end() && type->is_string() && !matches_type(value, type->get<std::string>())) {
      return fmt::format("argument '{}' must be a {}, got {} {}", key, type->get<std::string>(), value.type_name(),
                         dump_line(value));
    }
    const auto allowed = property->find("enum");
    if (allowed != property->end() && allowed->is_array() &&
        std::find(allowed->begin(), allowed->end(), value) == allowed->end()) {
      return fmt::format("argument '{}' is {}; expected one of {}", key, dump_line(value), dump_line(*allowed));
    }
    if (const auto min_length = property->find("minLength");
        min_length != property->end() && min_length->is_number_integer() && value.is_string() &&
        static_cast<std::int64_t>(value.get_ref<const std::string&>().size()) < min_length->get<std::int64_t>()) {
      return fmt::format("argument '{}' must be at least {} character(s) long", key, min_length->get<std::int64_t>());
    }
  }
  if (const auto required = schema.find("required"); required != schema.end() && required->is_array()) {
    for (const auto& name : *required) {
      if (!name.is_string() || arguments.contains(name.get<std::string>())) continue;
      const auto property = properties.find(name.get<std::string>());
      const std::string type = property != properties.end() ? property->value("type", "value") : "value";
      return fmt::format("missing required argument '{}' ({})", name.get<std::string>(), type);
    }
  }
  return std::nullopt;
}

McpServer::McpServer(ServerInfo info, std::vector<ToolDescriptor> tools)
    : info_(std::move(info)), tools_(std::move(tools)) {}

McpServer::Routed McpServer::route(std::string_view line) {
  Routed routed;
  line = strip_line_end(line);
  if (is_blank(line)) return routed;

  json message;
  try {
    message = json::parse(line);
  } catch (const json::parse_error& e) {
    routed.reply = error_reply(nullptr, kParseError, fmt::format("Parse error: {}", e.what()));
    return routed;
  }
  if (message.is_array()) {
    routed.reply = error_reply(nullptr, kInvalidRequest,
                               "Invalid Request: batches are not supported (removed in MCP 2025-06-18); send one "
                               "JSON-RPC message per line");
    return routed;
  }
  if (!message.is_object()) {
    routed.reply =
        error_reply(nullptr, kInvalidRequest,
                    fmt::format("Invalid Request: a message must be a JSON object, got {}", message.type_name()));
    return routed;
  }

  const bool has_id = message.contains("id");
  if (has_id && !is_valid_id(message["id"])) {
    routed.reply =
        error_reply(nullptr, kInvalidRequest,
                    fmt::format("Invalid Request: id must be a string or a number, got {}", message["id"].type_name()));
    return routed;
  }
  const json id = has_id ? message["id"] : json(nullptr);
  const auto method_it = message.find("method");
  if (method_it == message.end()) {
    // A response to a request: this server sends none, so there is nothing to match it with and nothing to answer.
    if (has_id && (message.contains("result") || message.contains("error"))) return routed;
    routed.reply = error_reply(id, kInvalidRequest, "Invalid Request: no method");
    return routed;
  }
  if (message.value("jsonrpc", json()) != "2.0") {
    routed.reply = error_reply(id, kInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\"");
    return routed;
  }
  if (!method_it->is_string()) {
    routed.reply = error_reply(id, kInvalidRequest, "Invalid Request: method must be a string");
    return routed;
  }
  const std::string method = method_it->get<std::string>();
  const auto params_it = message.find("params");
  const bool has_params = params_it != message.end() && !params_it->is_null();
  static const json kNoParams = json::object();
  const json& params = has_params ? *params_it : kNoParams;

  if (!has_id) {  // a notification: acted on when known, never answered
    if (method == "notifications/cancelled" && params.is_object() && params.contains("requestId")) {
      routed.cancel_id = params["requestId"];
    }
    return routed;
  }
  if (!params.is_object()) {
    routed.reply = error_reply(id, kInvalidParams,
                               fmt::format("Invalid params: params must be an object, got {}", params.type_name()));
    return routed;
  }

  try {
    route_method(method, id, params, routed);
  } catch (const std::exception& e) {
    routed = Routed{};
    routed.reply = error_reply(id, kInternalError, fmt::format("Internal error handling {}: {}", method, e.what()));
  }
  return routed;
}

// A request with a valid envelope, by method: an immediate reply, or a tool call deferred to call_tool.
void McpServer::route_method(const std::string& method, const json& id, const json& params, Routed& routed) {
  if (method == "initialize") {
    routed.reply = result_reply(id, initialize_result(params));
  } else if (method == "ping") {
    routed.reply = result_reply(id, json::object());
  } else if (method == "tools/list") {
    json listed = json::array();
    for (const auto& tool : tools_) {
      json entry = {{"name", tool.name}, {"description", tool.description}, {"inputSchema", tool.input_schema}};
      if (!tool.title.empty()) entry["title"] = tool.title;
      listed.push_back(std::move(entry));
    }
    routed.reply = result_reply(id, {{"tools", std::move(listed)}});  // one page: no nextCursor
  } else if (method == "tools/call") {
    route_tool_call(id, params, routed);
  } else {
    routed.reply = error_reply(id, kMethodNotFound, fmt::format("Method not found: {}", method));
  }
}

json McpServer::initialize_result(const json& params) const {
  std::string version(kSupportedProtocolVersions[0]);
  if (const auto asked = params.find("protocolVersion"); asked != params.end() && asked->is_string()) {
    const auto& text = asked->get_ref<const std::string&>();
    for (const auto supported : kSupportedProtocolVersions) {
      if (text == supported) version = text;
    }
  }
  json server_info = {{"name", info_.name}, {"version", info_.version}};
  json result = {{"protocolVersion", version},
                 {"capabilities", {{"tools", {{"listChanged", false}}}}},
                 {"serverInfo", std::move(server_info)}};
  if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
  return result;
}

// tools/call: the tool by name and its arguments checked against its schema; the call itself is deferred.
void McpServer::route_tool_call(const json& id, const json& params, Routed& routed) {
  const auto name = params.find("name");
  if (name == params.end() || !name->is_string()) {
    routed.reply = error_reply(id, kInvalidParams, "Invalid params: tools/call needs params.name (a string)");
    return;
  }
  const auto& wanted = name->get_ref<const std::string&>();
  const auto tool =
      std::find_if(tools_.begin(), tools_.end(), [&](const ToolDescriptor& t) { return t.name == wanted; });
  if (tool == tools_.end()) {
    routed.reply = error_reply(
        id, kInvalidParams,
        fmt::format("Invalid params: unknown tool '{}'; tools: {}", name->get<std::string>(), tool_names(tools_)));
    return;
  }
  json arguments = json::object();
  if (const auto given = params.find("arguments"); given != params.end() && !given->is_null()) arguments = *given;
  if (!arguments.is_object()) {  // the request itself is malformed (CallToolRequest.params.arguments is an object)
    routed.reply = error_reply(id, kInvalidParams,
                               fmt::format("Invalid params for tool '{}': arguments must be an object, got {}",
                                           tool->name, arguments.type_name()));
    return;
  }
  // MCP 2025-11-25, server/tools "Error Handling" (SEP-1303): input validation errors are tool execution errors,
  // reported in the result with isError so the model can read them and correct its call. No handler runs.
  if (auto problem = validate_arguments(tool->input_schema, arguments)) {
    const std::string text = fmt::format("Invalid arguments for tool '{}': {}", tool->name, *problem);
    routed.reply = result_reply(
        id, {{"isError", true},
             {"structuredContent", {{"status", "INVALID_ARGUMENTS"}, {"tool", tool->name}, {"error", *problem}}},
             {"content", json::array({{{"type", "text"}, {"text", text}}})}});
    return;
  }
  routed.tool = &*tool;
  routed.id = id;
  routed.arguments = std::move(arguments);
  if (const auto meta = params.find("_meta"); meta != params.end() && meta->is_object()) {
    if (const auto token = meta->find("progressToken"); token != meta->end() && is_valid_id(*token)) {
      routed.progress_token = *token;
    }
  }
}

json McpServer::call_tool(const json& id, const ToolDescriptor& tool, const json& arguments) {
  ToolResult outcome;
  try {
    if (!tool.handler) throw std::runtime_error("no handler is wired to this tool");
    outcome = tool.handler(arguments);
  } catch (const std::exception& e) {
    outcome = ToolResult{
        true, {{"status", "ERROR"}, {"error", e.what()}}, fmt::format("tool '{}' failed: {}", tool.name, e.what())};
  } catch (...) {
    outcome = ToolResult{true,
                         {{"status", "ERROR"}, {"error", "unknown exception"}},
                         fmt::format("tool '{}' failed with an unknown exception", tool.name)};
  }
  json result = {{"isError", outcome.is_error}};
  if (outcome.structured.is_object()) {
    result["structuredContent"] = outcome.structured;
  } else if (!outcome.structured.is_null()) {
    result["structuredContent"] = {{"value", outcome.structured}};  // structuredContent must be an object
  }
  const std::string text = !outcome.text.empty()          ? outcome.text
                           : outcome.structured.is_null() ? std::string(outcome.is_error ? "error" : "ok")
                                                          : dump_line(outcome.structured);
  result["content"] = json::array({{{"type", "text"}, {"text", text}}});
  return result_reply(id, std::move(result));
}

std::optional<std::string> McpServer::handle_line(std::string_view line) {
  Routed routed = route(line);
  if (routed.tool != nullptr) return dump_line(call_tool(routed.id, *routed.tool, routed.arguments));
  if (routed.reply) return dump_line(*routed.reply);
  return std::nullopt;
}

void McpServer::serve(std::istream& in, const std::function<void(const std::string&)>& write_line,
                      const ServeOptions& options) {
  std::mutex out_mutex;
  const auto send = [&](const json& message) {
    const std::string line = dump_line(message);
    std::lock_guard lock(out_mutex);
    write_line(line);
  };

  // Shared between the reader (this thread) and the worker; guarded by queue_mutex.
  std::mutex queue_mutex;
  std::condition_variable queue_changed;
  std::deque<Routed> queue;
  std::set<std::string> cancelled;  // ids (as JSON text) of queued or running calls whose reply must not be sent
  std::string running;              // id of the running call, as JSON text
  bool input_done = false;

  std::thread worker([&] {
    for (;;) {
      Routed call;
      {
        std::unique_lock lock(queue_mutex);
        queue_changed.wait(lock, [&] { return !queue.empty() || input_done; });
        if (queue.empty()) return;
        call = std::move(queue.front());
        queue.pop_front();
        if (cancelled.erase(call.id.dump()) > 0) continue;  // cancelled before it started: never run
        running = call.id.dump();
      }
      std::mutex beat_mutex;
      std::condition_variable beat_stop;
      bool finished = false;
      std::thread heartbeat;
      if (!call.progress_token.is_null() && options.progress_interval.count() > 0) {
        heartbeat = std::thread([&] {
          const auto start = std::chrono::steady_clock::now();
          std::unique_lock lock(beat_mutex);
          for (int beat = 1; !beat_stop.wait_for(lock, options.progress_interval, [&] { return finished; }); ++beat) {
            {
              std::lock_guard queue_lock(queue_mutex);
              if (cancelled.count(running) > 0) continue;
            }
            const auto seconds =
                std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count();
            send({{"jsonrpc", "2.0"},
                  {"method", "notifications/progress"},
                  {"params",
                   {{"progressToken", call.progress_token},
                    {"progress", beat},
                    {"message", fmt::format("{} still running ({} s)", call.tool->name, seconds)}}}});
          }
        });
      }
      json reply = call_tool(call.id, *call.tool, call.arguments);
      {
        std::lock_guard lock(beat_mutex);
        finished = true;
      }
      beat_stop.notify_all();
      if (heartbeat.joinable()) heartbeat.join();
      bool was_cancelled = false;
      {
        std::lock_guard lock(queue_mutex);
        was_cancelled = cancelled.erase(running) > 0;
        running.clear();
      }
      if (!was_cancelled) send(reply);
    }
  });

  std::string line;
  while (std::getline(in, line)) {
    Routed routed = route(line);
    if (routed.reply) send(*routed.reply);
    if (routed.cancel_id) {
      std::lock_guard lock(queue_mutex);
      const std::string key = routed.cancel_id->dump();
      const bool known = key == running ||
                         std::any_of(queue.begin(), queue.end(), [&](const Routed& r) { return r.id.dump() == key; });
      if (known) cancelled.insert(key);  // unknown or finished ids are ignored, as the spec allows
    }
    if (routed.tool != nullptr) {
      std::lock_guard lock(queue_mutex);
      queue.push_back(std::move(routed));
      queue_changed.notify_all();
    }
  }
  {
    std::lock_guard lock(queue_mutex);
    input_done = true;
  }
  queue_changed.notify_all();
  worker.join();
}

// ---- The campaign tools -------------------------------------------------------------------------------------------

std::vector<ToolDescriptor> campaign_tools(CampaignToolHandlers handlers) {
  const json no_arguments = {{"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}};
  json events = json::array();
  for (const auto event : kCampaignEvents) events.push_back(std::string(event));

  std::vector<ToolDescriptor> tools;
  tools.push_back(
      {"eval",
       "Evaluate the candidate",
       "Builds the campaign's candidate kernel, checks its constraints, compares its output with the reference on "
       "every scenario of the campaign and times it against the seed. Takes minutes. Records the evaluation and "
       "returns its summary (per-scenario status and speed-up, geomean), the events it raised, the question to "
       "consider next and the gate. A kernel that computes wrong results is a normal result (scenario status "
       "FAILED), not an error; isError means no complete evaluation was possible (did not compile, broke a "
       "constraint, no GPU, no campaign) and the text says why. correctness_only: check correctness, skip timing.",
       {{"type", "object"},
        {"properties", {{"correctness_only", {{"type", "boolean"}, {"description", "Skip timing (faster)"}}}}},
        {"additionalProperties", false}},
       std::move(handlers.eval)});
  tools.push_back({"status", "Campaign status",
                   "Where the campaign stands: best and latest speed-up over the seed, trend, goal terms still unmet, "
                   "open events, number of evaluations. Fast: reads the campaign log only.",
                   no_arguments, std::move(handlers.status)});
  tools.push_back(
      {"ask",
       "Question to consider",
       "The question kseek wants you to consider now, for the newest unanswered event or for the named event. Act "
       "on it in your next changes; there is nothing to send back. Fast.",
       {{"type", "object"},
        {"properties",
         {{"event",
           {{"type", "string"},
            {"enum", events},
            {"description", "Ask about this event instead of the newest unanswered one"}}}}},
        {"additionalProperties", false}},
       std::move(handlers.ask)});
  tools.push_back(
      {"claim",
       "Record a claim",
       "Records a claim in the campaign log: kind 'limit' when you believe the kernel cannot get meaningfully "
       "faster (say why, with numbers), 'done' when you believe the goal is met. It raises an event and returns "
       "the question for it; it does not end the campaign: the gate decides. Fast.",
       {{"type", "object"},
        {"properties",
         {{"kind", {{"type", "string"}, {"enum", {"limit", "done"}}}},
          {"text", {{"type", "string"}, {"minLength", 1}, {"description", "Your argument, in a few sentences"}}}}},
        {"required", {"kind", "text"}},
        {"additionalProperties", false}},
       std::move(handlers.claim)});
  tools.push_back({"gate", "Check the goal",
                   "Checks the campaign's goal against the newest evaluation of the candidate as it is now. isError, "
                   "with the unmet terms, when the goal does not hold, including when the candidate changed since "
                   "it was last evaluated (run eval first). Fast.",
                   no_arguments, std::move(handlers.gate)});
  return tools;
}

std::string campaign_instructions() {
  return "kseek runs a CUDA kernel optimisation campaign. Edit the candidate kernel named in campaign.json, then "
         "call eval (it takes minutes) to build, check and time it against the seed. status shows where the "
         "campaign stands, ask gives the question to consider now, claim records that you believe you hit a limit "
         "or are done, and gate checks whether the goal holds. Wrong results are outcomes inside eval's result; "
         "isError means a call could not do its job, and its text says why.";
}

}  // namespace kseek::mcp

// The MCP engine through scripted sessions with fake tool handlers: handshake, tools, both error channels, the
// serving loop (ping during a long call, progress, cancellation, EOF). It must never need a campaign or a GPU.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/campaign/campaign_engine.hpp"
#include "kseek/core/mcp/mcp_server.hpp"

namespace {

using kseek::mcp::McpServer;
using kseek::mcp::ToolResult;
using nlohmann::json;

// What each fake tool received; the fakes answer with a document naming the tool.
struct FakeCampaign {
  std::vector<std::pair<std::string, json>> calls;

  kseek::mcp::ToolHandler handler(const std::string& name, bool is_error = false) {
    return [this, name, is_error](const json& args) {
      calls.emplace_back(name, args);
      return ToolResult{is_error, {{"status", is_error ? "ERROR" : "OK"}, {"tool", name}}, ""};
    };
  }

  kseek::mcp::CampaignToolHandlers handlers() {
    return {handler("eval"), handler("status"), handler("ask"), handler("claim"), handler("gate", true)};
  }
};

McpServer make_server(kseek::mcp::CampaignToolHandlers handlers) {
  return McpServer({"kseek", "9.9.9", kseek::mcp::campaign_instructions()},
                   kseek::mcp::campaign_tools(std::move(handlers)));
}

// Sends one line, expects exactly one reply, returns it parsed.
json send_line(McpServer& server, const std::string& line) {
  const auto reply = server.handle_line(line);
  if (!reply) {
    ADD_FAILURE() << "no reply to " << line;
    return {};
  }
  EXPECT_EQ(reply->find('\n'), std::string::npos) << "a reply must be one line: " << *reply;
  return json::parse(*reply);
}

json request(const json& id, const std::string& method, const json& params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

json call(const json& id, const std::string& tool, const json& arguments = json::object()) {
  return request(id, "tools/call", {{"name", tool}, {"arguments", arguments}});
}

int error_code(const json& reply) {
  if (!reply.contains("error")) {
    ADD_FAILURE() << "expected an error reply, got " << reply.dump();
    return 0;
  }
  EXPECT_FALSE(reply.contains("result")) << reply.dump();
  EXPECT_TRUE(reply["error"]["message"].is_string()) << reply.dump();
  return reply["error"]["code"].get<int>();
}

TEST(McpServer, InitializeEchoesASupportedVersionAndDeclaresTools) {
  FakeCampaign fake;
  auto server = make_server(fake.handlers());
  for (const std::string version : {"2025-06-18", "2025-11-25", "2025-03-26"}) {
    const json reply = send_line(server, request(1, "initialize",
                                                 {{"protocolVersion", version},
                                                  {"capabilities", json::object()},
                                                  {"clientInfo", {{"name", "test"}, {"version", "1"}}}})
                                             .dump());
    EXPECT_EQ(reply["jsonrpc"], "2.0");
    EXPECT_EQ(reply["id"], 1);
    const json& result = reply.at("result");
    EXPECT_EQ(result["protocolVersion"], version);
    EXPECT_EQ(result["capabilities"], json({{"tools", {{"listChanged", false}}}}));
    EXPECT_EQ(result["serverInfo"]["name"], "kseek");
    EXPECT_EQ(result["serverInfo"]["version"], "9.9.9");
    EXPECT_LT(result["instructions"].get<std::string>().size(), 2048U);
  }
}

TEST(McpServer, InitializeAnswersAnUnknownVersionWithTheLatest) {
  FakeCampaign fake;
  auto server = make_server(fake.handlers());
  const json reply = send_line(server, request("init", "initialize", {{"protocolVersion", "2024-11-05"}}).dump());
  EXPECT_EQ(reply["id"], "init");
  EXPECT_EQ(reply["result"]["protocolVersion"], std::string(kseek::mcp::kSupportedProtocolVersions[0]));
  EXPECT_EQ(reply["result"]["protocolVersion"], "2025-11-25");
}

TEST(McpServer, NotificationsGetNoReply) {
  FakeCampaign fake;
  auto server = make_server(fake.handlers());
  EXPECT_FALSE(server.handle_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  EXPECT_FALSE(server.handle_line(R"({"jsonrpc":"2.0","method":"notifications/whatever","params":{"x":1}})"));
  EXPECT_FALSE(server.handle_line(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}})"));
  // A call without an id is a notification too: never run, never answered.
  EXPECT_FALSE(server.handle_line(R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"eval"}})"));
  EXPECT_TRUE(fake.calls.empty());
  // Blank lines and responses (this server sends no requests) are not answered either.
  EXPECT_FALSE(server.handle_line(""));
  EXPECT_FALSE(server.handle_line("   \r"));
  EXPECT_FALSE(server.handle_line(R"({"jsonrpc":"2.0","id":5,"result":{}})"));
}

TEST(McpServer, PingAnswersAnEmptyResultEvenBeforeInitialize) {
  FakeCampaign fake;
  auto server = make_server(fake.handlers());
  const json reply = send_line(server, R"({"jsonrpc":"2.0","id":42,"method":"ping"})");
  EXPECT_EQ(reply["id"], 42);
  EXPECT_EQ(reply["result"], json::object());
  // Requests before initialize proceed (documented in docs/mcp.md): tools/call runs too.
  const json called = send_line(server, call(43, "status").dump());
  EXPECT_EQ(called["result"]["isError"], false);
}

TEST(McpServer, ToolsListDescribesTheFiveCampaignTools) {
  FakeCampaign fake;
  auto server = make_server(fake.handlers());
  const json reply = send_line(server, request(2, "tools/list").dump());
  const json& tools = reply.at("result").at("tools");
  EXPECT_FALSE(reply["result"].contains("nextCursor"));
  std::vector<std::string> names;
  const std::regex valid_name("[A-Za-z0-9_.-]{1,128}");
  for (const auto& tool : tools) {
    names.push_back(tool.at("name"));
    EXPECT_TRUE(std::regex_match(names.back(), valid_name)) << names.back();
    const auto& description = tool.at("description").get_ref<const std::string&>();
    EXPECT_FALSE(description.empty());
    EXPECT_LT(description.size(), 2048U) << names.back();
    const json& schema = tool.at("inputSchema");
    EXPECT_EQ(schema.at("type"), "object") << names.back();
    EXPECT_EQ(schema.at("additionalProperties"), false) << names.back();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"eval", "status", "ask", "claim", "gate"}));
  EXPECT_NE(tools[0]["description"].get<std::string>().find("minutes"), std::string::npos);
  EXPECT_EQ(tools[0]["inputSchema"]["properties"]["correctness_only"]["type"], "boolean");
  EXPECT_EQ(tools[1]["inputSchema"]["properties"], json::object());
  json events = json::array();
  for (const auto event : kseek::kCampaignEvents) events.push_back(std::string(event));
  EXPECT_EQ(events.size(), 6U);
  EXPECT_EQ(tools[2]["inputSchema"]["properties"]["event"]["enum"], events);
  EXPECT_FALSE(tools[2]["inputSchema"].contains("required"));
  EXPECT_EQ(tools[3]["inputSchema"]["required"], json({"kind", "text"}));
  EXPECT_EQ(tools[3]["inputSchema"]["properties"]["kind"]["enum"], json({"limit", "done"}));
  EXPECT_EQ(tools[4]["inputSchema"]["properties"], json::object());
}

TEST(McpServer, EachToolIsCalledWithItsArgumentsAndAnswersContentAndStructuredContent) {
  FakeCampaign fake;
  auto server = make_server(fake.handlers());
  const std::vector<std::pair<std::string, json>> script = {
      {"eval", {{"correctness_only", true}}},
      {"status", json::object()},
      {"ask", {{"event", "stagnation"}}},
      {"ask", json::object()},
      {"claim", {{"kind", "limit"}, {"text", "bandwidth bound at 92% of peak"}}},
      {"gate", json::object()},
  };
  int id = 10;
  for (const auto& [tool, arguments] : script) {
    const json reply = send_line(server, call(id, tool, arguments).dump());
    EXPECT_EQ(reply["id"], id);
    const json& result = reply.at("result");
    const json expected = {{"status", tool == "gate" ? "ERROR" : "OK"}, {"tool", tool}};
    EXPECT_EQ(result.at("structuredContent"), expected) << tool;
    ASSERT_EQ(result.at("content").size(), 1U);
    EXPECT_EQ(result["content"][0]["type"], "text");
    EXPECT_EQ(json::parse(result["content"][0]["text"].get<std::string>()), expected) << "text falls back to the JSON";
    // gate's fake fails as a tool (e.g. the goal is unmet): a normal result with isError, not a protocol error.
    EXPECT_EQ(result.at("isError"), tool == "gate") << tool;
    ++id;
  }
  ASSERT_EQ(fake.calls.size(), script.size());
  for (std::size_t i = 0; i < script.size(); ++i) {
    EXPECT_EQ(fake.calls[i].first, script[i].first);
    EXPECT_EQ(fake.calls[i].second, script[i].second);
  }
  // Arguments may be left out when the tool takes none.
  const json reply =
      send_line(server, R"({"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"status"}})");
  EXPECT_EQ(reply["result"]["isError"], false);
  EXPECT_EQ(fake.calls.back().second, json::object());
}

TEST(McpServer, AThrowingToolIsAnErrorResultAndTheServerGoesOn) {
  FakeCampaign fake;
  auto handlers = fake.handlers();
  handlers.eval = [](const json&) -> ToolResult { throw std::runtime_error("nvrtc exploded"); };
  handlers.status = [](const json&) -> ToolResult { throw 17; };
  handlers.ask = nullptr;  // not wired
  auto server = make_server(std::move(handlers));
  for (const std::string tool : {"eval", "status", "ask"}) {
    const json reply = send_line(server, call(1, tool).dump());
    ASSERT_TRUE(reply.contains("result")) << reply.dump();
    EXPECT_EQ(reply["result"]["isError"], true) << tool;
    EXPECT_NE(reply["result"]["content"][0]["text"].get<std::string>().find(tool), std::string::npos) << reply.dump();
  }
  const json thrown = send_line(server, call(2, "eval").dump());
  EXPECT_NE(thrown["result"]["content"][0]["text"].get<std::string>().find("nvrtc exploded"), std::string::npos);
  EXPECT_EQ(send_line(server, R"({"jsonrpc":"2.0","id":3,"method":"ping"})")["result"], json::object());
}

TEST(McpServer, ProtocolErrorsCarryTheirJsonRpcCodes) {
  FakeCampaign fake;
  auto server = make_server(fake.handlers());

  const json parse = send_line(server, R"({"jsonrpc":"2.0","id":1,"method":"ping")");
  EXPECT_EQ(error_code(parse), kseek::mcp::kParseError);
  EXPECT_TRUE(parse["id"].is_null());
  EXPECT_EQ(error_code(send_line(server, "not json at all")), -32700);
  EXPECT_EQ(error_code(send_line(server, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}")), -32700) << "bad UTF-8";

  const json unknown = send_line(server, request(7, "resources/list").dump());
  EXPECT_EQ(error_code(unknown), kseek::mcp::kMethodNotFound);
  EXPECT_EQ(unknown["id"], 7);

  const json no_method = send_line(server, R"({"jsonrpc":"2.0","id":8})");
  EXPECT_EQ(error_code(no_method), kseek::mcp::kInvalidRequest);
  EXPECT_EQ(no_method["id"], 8);
  EXPECT_EQ(error_code(send_line(server, R"({"jsonrpc":"1.0","id":9,"method":"ping"})")), -32600);
  EXPECT_EQ(error_code(send_line(server, R"({"id":9,"method":"ping"})")), -32600);
  EXPECT_EQ(error_code(send_line(server, R"({"jsonrpc":"2.0","id":9,"method":5})")), -32600);
  EXPECT_EQ(error_code(send_line(server, R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})")), -32600);
  EXPECT_EQ(error_code(send_line(server, R"({"jsonrpc":"2.0","id":null,"method":"ping"})")), -32600);
  EXPECT_EQ(error_code(send_line(server, "42")), -32600);

  const json batch =
      send_line(server, R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}])");
  EXPECT_EQ(error_code(batch), kseek::mcp::kInvalidRequest);
  EXPECT_TRUE(batch["id"].is_null());
  EXPECT_NE(batch["error"]["message"].get<std::string>().find("batch"), std::string::npos);

  EXPECT_EQ(error_code(send_line(server, R"({"jsonrpc":"2.0","id":10,"method":"tools/list","params":[1]})")), -32602);
  EXPECT_TRUE(fake.calls.empty()) << "no protocol error may run a tool";
}

// MCP 2025-11-25, server/tools "Error Handling" (SEP-1303): a call the request schema rejects (no tool name, an
// unknown tool, arguments that are not an object) is a JSON-RPC error; arguments the tool's input schema rejects are
// a tool execution error, a result with isError, so that the model reads the message and corrects its call.
TEST(McpServer, MalformedToolCallsAreInvalidParamsAndRunNothing) {
  FakeCampaign fake;
  auto server = make_server(fake.handlers());
  const std::vector<std::pair<json, std::string>> cases = {
      {request(1, "tools/call", {{"name", "compile"}}), "unknown tool 'compile'"},
      {request(2, "tools/call", json::object()), "params.name"},
      {request(3, "tools/call", {{"name", 5}}), "params.name"},
      {request(12, "tools/call", {{"name", "eval"}, {"arguments", "all"}}), "must be an object"},
  };
  for (const auto& [message, expected_text] : cases) {
    const json reply = send_line(server, message.dump());
    EXPECT_EQ(error_code(reply), kseek::mcp::kInvalidParams) << message.dump();
    if (!reply.contains("error")) continue;
    EXPECT_EQ(reply["id"], message["id"]);
    EXPECT_NE(reply["error"]["message"].get<std::string>().find(expected_text), std::string::npos)
        << reply["error"]["message"] << " should mention " << expected_text;
  }
  EXPECT_TRUE(fake.calls.empty());
}

TEST(McpServer, ArgumentsTheSchemaRejectsAreToolErrorsAndRunNothing) {
  FakeCampaign fake;
  auto server = make_server(fake.handlers());
  const std::vector<std::pair<json, std::string>> cases = {
      {call(4, "claim", {{"kind", "limit"}}), "missing required argument 'text'"},
      {call(5, "claim", {{"text", "x"}}), "missing required argument 'kind'"},
      {call(6, "claim", {{"kind", "maybe"}, {"text", "x"}}), "expected one of"},
      {call(7, "claim", {{"kind", "done"}, {"text", ""}}), "at least 1"},
      {call(8, "eval", {{"correctness_only", "yes"}}), "must be a boolean"},
      {call(9, "ask", {{"event", "lunch"}}), "'event'"},
      {call(10, "ask", {{"event", 3}}), "must be a string"},
      {call(11, "status", {{"verbose", true}}), "unknown argument 'verbose'"},
  };
  for (const auto& [message, expected_text] : cases) {
    const json reply = send_line(server, message.dump());
    EXPECT_EQ(reply["id"], message["id"]);
    ASSERT_TRUE(reply.contains("result")) << "a tool error, not a protocol error: " << reply.dump();
    EXPECT_FALSE(reply.contains("error")) << reply.dump();
    const json& result = reply["result"];
    EXPECT_EQ(result["isError"], true) << message.dump();
    const std::string text = result["content"][0]["text"];
    EXPECT_EQ(result["content"][0]["type"], "text");
    EXPECT_NE(text.find(expected_text), std::string::npos) << text << " should mention " << expected_text;
    EXPECT_NE(text.find(message["params"]["name"].get<std::string>()), std::string::npos) << "names the tool: " << text;
    EXPECT_EQ(result["structuredContent"]["status"], "INVALID_ARGUMENTS") << result.dump();
  }
  EXPECT_TRUE(fake.calls.empty()) << "a call with arguments the schema rejects never reaches a handler";
}

TEST(McpServer, MalformedLineThenAValidRequestIsStillAnswered) {
  FakeCampaign fake;
  auto server = make_server(fake.handlers());
  EXPECT_EQ(error_code(send_line(server, "{\"jsonrpc\":")), -32700);
  EXPECT_EQ(error_code(send_line(server, "[]")), -32600);
  const json reply = send_line(server, call(2, "status").dump());
  EXPECT_EQ(reply["id"], 2);
  EXPECT_EQ(reply["result"]["isError"], false);
}

TEST(McpServer, InvalidUtf8InAToolResultIsReplacedNotFatal) {
  FakeCampaign fake;
  auto handlers = fake.handlers();
  handlers.status = [](const json&) { return ToolResult{false, {{"log", std::string("bad \xff byte")}}, ""}; };
  auto server = make_server(std::move(handlers));
  const json reply = send_line(server, call(1, "status").dump());
  EXPECT_EQ(reply["result"]["isError"], false);
  EXPECT_NE(reply["result"]["structuredContent"]["log"].get<std::string>().find("bad "), std::string::npos);
}

// ---- The serving loop --------------------------------------------------------------------------------------------

// Collects what the server writes; lets a handler wait (with a bound, never a sleep) for a line to appear.
class Sink {
 public:
  void write(const std::string& line) {
    {
      std::lock_guard lock(mutex_);
      EXPECT_EQ(line.find('\n'), std::string::npos);
      lines_.push_back(json::parse(line));
    }
    changed_.notify_all();
  }
  bool wait_for(const std::function<bool(const json&)>& match) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(20),
                             [&] { return std::any_of(lines_.begin(), lines_.end(), match); });
  }
  std::vector<json> lines() {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<json> lines_;
};

std::string script(const std::vector<json>& messages) {
  std::string text;
  for (const auto& m : messages) text += m.dump() + "\n";
  return text;
}

bool is_reply_to(const json& line, const json& id) { return line.contains("id") && line["id"] == id; }

TEST(McpServerServe, AScriptedSessionIsAnsweredAndEndsAtEof) {
  FakeCampaign fake;
  auto server = make_server(fake.handlers());
  std::istringstream in(script({request(1, "initialize", {{"protocolVersion", "2025-06-18"}}),
                                {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                                request(2, "tools/list"),
                                call(3, "status"),
                                call(4, "gate")}) +
                        "garbage\r\n" + request(5, "ping").dump() + "\r\n");
  Sink sink;
  server.serve(in, [&](const std::string& line) { sink.write(line); });
  const auto lines = sink.lines();
  ASSERT_EQ(lines.size(), 6U);
  EXPECT_EQ(lines[0]["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(lines[1]["result"]["tools"].size(), 5U);
  // The tool calls run on the worker, so their replies may come after later immediate replies.
  std::vector<json> ids;
  for (const auto& l : lines) ids.push_back(l["id"]);
  for (const json id : {1, 2, 3, 4, 5}) EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  EXPECT_NE(std::find(ids.begin(), ids.end(), nullptr), ids.end()) << "the garbage line's parse error";
  for (const auto& l : lines) {
    if (is_reply_to(l, 4)) {
      EXPECT_EQ(l["result"]["isError"], true);
    }
    if (l["id"].is_null()) {
      EXPECT_EQ(l["error"]["code"], -32700);
    }
  }
  EXPECT_EQ(fake.calls.size(), 2U);
}

TEST(McpServerServe, PingIsAnsweredWhileAToolRuns) {
  Sink sink;
  FakeCampaign fake;
  auto handlers = fake.handlers();
  bool saw_ping = false;
  handlers.eval = [&](const json&) {
    // Runs inline in the reader thread this would wait the full bound and fail.
    saw_ping = sink.wait_for([](const json& l) { return is_reply_to(l, "p"); });
    return ToolResult{false, {{"status", "COMPLETE"}}, ""};
  };
  auto server = make_server(std::move(handlers));
  std::istringstream in(script({call(1, "eval"), request("p", "ping")}));
  server.serve(in, [&](const std::string& line) { sink.write(line); });
  EXPECT_TRUE(saw_ping);
  const auto lines = sink.lines();
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_TRUE(is_reply_to(lines[0], "p"));
  EXPECT_TRUE(is_reply_to(lines[1], 1));
  EXPECT_EQ(lines[1]["result"]["isError"], false);
}

TEST(McpServerServe, ProgressIsReportedForACallThatAsksForIt) {
  Sink sink;
  FakeCampaign fake;
  auto handlers = fake.handlers();
  bool saw_progress = false;
  handlers.eval = [&](const json&) {
    saw_progress = sink.wait_for([](const json& l) { return l.value("method", "") == "notifications/progress"; });
    return ToolResult{false, {{"status", "COMPLETE"}}, ""};
  };
  auto server = make_server(std::move(handlers));
  json with_token = call(1, "eval");
  with_token["params"]["_meta"] = {{"progressToken", "tok"}};
  std::istringstream in(script({with_token}));
  server.serve(in, [&](const std::string& line) { sink.write(line); }, {std::chrono::milliseconds(1)});
  EXPECT_TRUE(saw_progress);
  const auto lines = sink.lines();
  ASSERT_GE(lines.size(), 2U);
  EXPECT_TRUE(is_reply_to(lines.back(), 1)) << "no progress after the reply";
  int last = 0;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    EXPECT_FALSE(lines[i].contains("id")) << "a notification has no id";
    EXPECT_EQ(lines[i]["params"]["progressToken"], "tok");
    const int progress = lines[i]["params"]["progress"].get<int>();
    EXPECT_GT(progress, last) << "progress must increase";
    last = progress;
  }
}

TEST(McpServerServe, NoProgressWithoutAToken) {
  Sink sink;
  FakeCampaign fake;
  auto handlers = fake.handlers();
  handlers.eval = [&](const json&) {
    // With a 1 ms interval a wrongly sent progress would most likely come before the ping's reply.
    (void)sink.wait_for(
        [](const json& l) { return l.value("method", "") == "notifications/progress" || is_reply_to(l, "p"); });
    return ToolResult{false, {{"status", "COMPLETE"}}, ""};
  };
  auto server = make_server(std::move(handlers));
  std::istringstream in(script({call(1, "eval"), request("p", "ping")}));
  server.serve(in, [&](const std::string& line) { sink.write(line); }, {std::chrono::milliseconds(1)});
  for (const auto& l : sink.lines()) EXPECT_NE(l.value("method", ""), "notifications/progress") << l.dump();
}

// An input stream the test feeds while the server reads it, so a line can be held back until a tool has started.
class FedInput : public std::streambuf {
 public:
  void feed(const std::string& text) {
    {
      std::lock_guard lock(mutex_);
      pending_ += text;
    }
    changed_.notify_all();
  }
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    changed_.notify_all();
  }

 protected:
  int_type underflow() override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !pending_.empty() || closed_; });
    if (pending_.empty()) return traits_type::eof();
    current_ = std::move(pending_);
    pending_.clear();
    setg(current_.data(), current_.data(), current_.data() + current_.size());
    return traits_type::to_int_type(current_[0]);
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string pending_, current_;
  bool closed_ = false;
};

TEST(McpServerServe, CancelledCallsAreNotAnsweredAndQueuedOnesNeverRun) {
  Sink sink;
  FakeCampaign fake;
  auto handlers = fake.handlers();
  std::mutex started_mutex;
  std::condition_variable started_changed;
  bool started = false;
  bool saw_ping = false;
  handlers.eval = [&](const json&) {
    {
      std::lock_guard lock(started_mutex);
      started = true;
    }
    started_changed.notify_all();
    // The reader handles the cancellations before the ping, so once the ping is answered both are cancelled.
    saw_ping = sink.wait_for([](const json& l) { return is_reply_to(l, "after"); });
    return ToolResult{false, {{"status", "COMPLETE"}}, ""};
  };
  auto server = make_server(std::move(handlers));
  const auto cancel = [](const json& id) {
    return json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", id}}}};
  };
  FedInput feed;
  std::istream in(&feed);
  std::thread serving([&] { server.serve(in, [&](const std::string& line) { sink.write(line); }); });
  feed.feed(script({call(1, "eval"), call(2, "status")}));
  {
    std::unique_lock lock(started_mutex);
    EXPECT_TRUE(started_changed.wait_for(lock, std::chrono::seconds(20), [&] { return started; }));
  }
  feed.feed(script({cancel(2), cancel(1), cancel(99), request("after", "ping"), call(3, "gate")}));
  feed.close();
  serving.join();
  EXPECT_TRUE(saw_ping);
  const auto lines = sink.lines();
  ASSERT_EQ(lines.size(), 2U) << "only the ping and the uncancelled gate call";
  EXPECT_TRUE(is_reply_to(lines[0], "after"));
  EXPECT_TRUE(is_reply_to(lines[1], 3));
  ASSERT_EQ(fake.calls.size(), 1U) << "status was cancelled before it started";
  EXPECT_EQ(fake.calls[0].first, "gate");
}

}  // namespace

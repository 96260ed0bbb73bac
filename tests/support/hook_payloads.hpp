// Test support: the Stop hook payload each agent host sends, for tests that run the real `kseek hook stop`.
// It must never be used by product code.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace kseek::testing {

// A Stop payload in the shape each host sends (Claude Code hooks reference; Codex stop.command.input schema).
inline nlohmann::json stop_payload(const std::string& host, const nlohmann::json& session_id,
                                   const std::filesystem::path& cwd, const nlohmann::json& last_message = nullptr) {
  if (host == "codex") {
    return {{"session_id", session_id},     {"turn_id", "turn-1"},       {"transcript_path", nullptr},
            {"cwd", cwd.string()},          {"hook_event_name", "Stop"}, {"model", "gpt-5-codex"},
            {"permission_mode", "default"}, {"stop_hook_active", false}, {"last_assistant_message", last_message}};
  }
  nlohmann::json j = {{"session_id", session_id},  {"transcript_path", "/tmp/transcript.jsonl"},
                      {"cwd", cwd.string()},       {"permission_mode", "default"},
                      {"hook_event_name", "Stop"}, {"stop_hook_active", false}};
  if (!last_message.is_null()) j["last_assistant_message"] = last_message;
  return j;
}

}  // namespace kseek::testing

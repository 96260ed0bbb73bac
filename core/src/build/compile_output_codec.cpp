// Encoding and integrity-checked decoding of CompileOutput.
// It must never trust a size field before checking it against the bytes actually present.
#include "kseek/core/build/compile_output_codec.hpp"

#include <fmt/format.h>

#include "kseek/core/util/sha256.hpp"

namespace kseek {
namespace {

constexpr std::string_view kMagic = "KSEEK-COMPILE-OUTPUT 1\n";

}  // namespace

std::string encode_compile_output(const CompileOutput& output) {
  const std::string payload = output.ptx + output.cubin + output.log;
  const nlohmann::json header = {
      {"status", to_string(output.status)}, {"error", output.error},          {"ptx_bytes", output.ptx.size()},
      {"cubin_bytes", output.cubin.size()}, {"log_bytes", output.log.size()}, {"payload_sha256", sha256_hex(payload)},
      {"kernels", output.kernels},          {"options", output.options},      {"nvrtc_version", output.nvrtc_version},
      {"ptxas_notes", output.ptxas_notes},
      {"cache_key", output.cache_key},      {"seconds", output.seconds}};
  std::string bytes;
  bytes.reserve(kMagic.size() + payload.size() + 1024);
  bytes.append(kMagic).append(header.dump()).append("\n").append(payload);
  return bytes;
}

Result<CompileOutput> decode_compile_output(std::string_view bytes) {
  if (bytes.substr(0, kMagic.size()) != kMagic) return make_error("bad magic");
  const auto header_end = bytes.find('\n', kMagic.size());
  if (header_end == std::string_view::npos) return make_error("no header line");
  try {
    const auto header = nlohmann::json::parse(bytes.substr(kMagic.size(), header_end - kMagic.size()));
    const std::string_view payload = bytes.substr(header_end + 1);
    const auto ptx_size = header.at("ptx_bytes").get<std::size_t>();
    const auto cubin_size = header.at("cubin_bytes").get<std::size_t>();
    const auto log_size = header.at("log_bytes").get<std::size_t>();
    if (payload.size() != ptx_size + cubin_size + log_size) {
      return make_error(
          fmt::format("payload is {} bytes, header says {}", payload.size(), ptx_size + cubin_size + log_size));
    }
    if (sha256_hex(payload) != header.at("payload_sha256").get<std::string>()) {
      return make_error("payload checksum mismatch");
    }
    CompileOutput out;
    const auto status = status_from_string(header.at("status").get<std::string>());
    if (!status) return make_error("unknown status in header");
    out.status = *status;
    header.at("error").get_to(out.error);
    out.ptx = std::string(payload.substr(0, ptx_size));
    out.cubin = std::string(payload.substr(ptx_size, cubin_size));
    out.log = std::string(payload.substr(ptx_size + cubin_size, log_size));
    header.at("kernels").get_to(out.kernels);
    header.at("ptxas_notes").get_to(out.ptxas_notes);
    header.at("options").get_to(out.options);
    header.at("nvrtc_version").get_to(out.nvrtc_version);
    header.at("cache_key").get_to(out.cache_key);
    header.at("seconds").get_to(out.seconds);
    return out;
  } catch (const std::exception& e) {
    return make_error(fmt::format("unreadable header ({})", e.what()));
  }
}

}  // namespace kseek

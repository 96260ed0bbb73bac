// json_binding: each key listed once reads and writes a document; a wrong value names its key path; unknown keys are
// kept or refused as the type says; the GPU probe is one such document.
#include <gtest/gtest.h>

#include "kseek/core/util/json_binding.hpp"
#include "kseek/core/worker/gpu_probe.hpp"

namespace kseek {
namespace {
using nlohmann::json;

enum class Colour { kRed, kBlue };

struct Inner {
  int count = 3;
  std::optional<double> rate;
};

struct Outer {
  std::string name;
  Colour colour = Colour::kRed;
  std::vector<Inner> items;
  std::map<std::string, bool> flags;
  json rest = json::object();
};

std::string_view to_string(Colour c) { return c == Colour::kRed ? "red" : "blue"; }
std::optional<std::string> read_enum(std::string_view text, Colour& out) {
  if (text != "red" && text != "blue") return "expected red or blue, found \"" + std::string(text) + "\"";
  out = text == "red" ? Colour::kRed : Colour::kBlue;
  return std::nullopt;
}

template <class Io>
void bind_keys(Io& io, Inner& v) {
  io("count", v.count);
  io("rate", v.rate);
  io.no_other_keys();
}

template <class Io>
void bind_keys(Io& io, Outer& v) {
  io("name", v.name);
  io("colour", v.colour);
  io("items", v.items);
  io("flags", v.flags);
  io.unmodelled(v.rest);
}

TEST(JsonBinding, ReadsEveryLevelKeepsDefaultsAndWritesTheSameDocumentBack) {
  const json doc = {{"name", "x"},
                    {"colour", "blue"},
                    {"items", {{{"count", 7}, {"rate", 0.5}}, json::object()}},
                    {"flags", {{"a", true}}},
                    {"extra", {1, 2}}};
  auto read = json_binding::read_bound<Outer>(doc, "outer");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->colour, Colour::kBlue);
  ASSERT_EQ(read->items.size(), 2u);
  EXPECT_EQ(read->items[0].count, 7);
  EXPECT_EQ(read->items[1].count, 3);  // absent: the default
  EXPECT_FALSE(read->items[1].rate);
  EXPECT_EQ(read->rest, json({{"extra", {1, 2}}}));
  json expected = doc;
  expected["items"][1] = {{"count", 3}};  // the default is written; an empty optional is not
  EXPECT_EQ(json_binding::write_bound(*read), expected);
}

TEST(JsonBinding, AWrongValueOrAnUnknownKeyWhereNoneIsAllowedNamesItsPath) {
  const auto error = [](const json& doc) {
    auto read = json_binding::read_bound<Outer>(doc, "outer");
    return read ? std::string("(read)") : read.error().message;
  };
  EXPECT_EQ(error({{"items", {json::object(), {{"count", 1.5}}}}}),
            "outer: items[1].count: expected an integer, found 1.5");
  EXPECT_EQ(error({{"items", {{{"cont", 1}}}}}), "outer: items[0].cont: unknown key");
  EXPECT_EQ(error({{"colour", "green"}}), "outer: colour: expected red or blue, found \"green\"");
  EXPECT_EQ(error({{"flags", {{"a", "yes"}}}}), "outer: flags.a: expected true or false, found \"yes\"");
  EXPECT_EQ(error({{"name", 4}}), "outer: name: expected a string, found 4");
  EXPECT_EQ(error(json::array()), "outer: expected an object, found []");
}

TEST(GpuProbe, AWorkersProbeReadsTypedAndWritesBackWithItsIdentityKeys) {
  const json written = {{"available", true},
                        {"name", "NVIDIA H200"},
                        {"uuid", "GPU-1"},
                        {"compute_capability", "9.0"},
                        {"copy_bandwidth_bytes_per_second", 4.2e12}};
  auto probe = gpu_probe_from_json(written);
  ASSERT_TRUE(probe) << probe.error().message;
  EXPECT_TRUE(probe->available);
  EXPECT_EQ(probe->copy_bandwidth_bytes_per_second, 4.2e12);
  json back = to_json(*probe);
  EXPECT_EQ(back["uuid"], "GPU-1");
  EXPECT_EQ(back["ordinal"], 0);
  EXPECT_FALSE(back.contains("problem"));

  auto wrong = gpu_probe_from_json({{"available", "yes"}});
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().message, "GPU probe: available: expected true or false, found \"yes\"");

  auto failed = gpu_probe_from_json({{"status", "CRASHED"}, {"message", "worker killed by signal 9"}});
  ASSERT_TRUE(failed) << failed.error().message;
  EXPECT_FALSE(failed->available);
  EXPECT_EQ(failed->why_unavailable(), "worker killed by signal 9");
}

}  // namespace
}  // namespace kseek

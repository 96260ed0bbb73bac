// app::measure_peer_figures and read_peer_document: a campaign's peer command run as the campaign runs it (no shell,
// its own process group, a deadline), and every way it can fail becoming the record's peer_figures.error.
// It must never need a GPU or Python: the commands are small /bin/sh scripts written by each test.
#include <chrono>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/app/peer_figures.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

using nlohmann::json;

PeerFigures run_script(const testing::TempFolder& folder, const std::string& body, double timeout = 30) {
  std::ofstream(folder.path() / "peers.sh") << body;
  PeerFiguresCommand command;
  command.command = {"/bin/sh", "peers.sh"};
  command.timeout_seconds = timeout;
  return app::measure_peer_figures(command, folder.path());
}

TEST(PeerFigures, TheDocumentTheCommandWritesBecomesTheFigures) {
  testing::TempFolder folder("kseek-peers");
  // Run in the campaign folder: the script reads a file there.
  std::ofstream(folder.path() / "gpu.txt") << "NVIDIA H200";
  const auto figures = run_script(folder, R"(gpu=$(cat gpu.txt)
printf '{"gpu": "%s", "rows": [{"scenario": "H01", "cudnn_tflops": 611.0, "fa2_ms": 3.29, "note": "x"},
  {"scenario": "H03", "cudnn_tflops": 593.2}]}' "$gpu" > "$KSEEK_PEER_FIGURES"
echo measured
)");
  ASSERT_FALSE(figures.error) << *figures.error;
  EXPECT_EQ(figures.command, (std::vector<std::string>{"/bin/sh", "peers.sh"}));
  EXPECT_EQ(figures.about.at("gpu"), "NVIDIA H200");
  ASSERT_EQ(figures.scenarios.size(), 2u);
  EXPECT_EQ(figures.scenarios.at("H01").at("cudnn_tflops"), 611.0);
  EXPECT_EQ(figures.scenarios.at("H01").at("fa2_ms"), 3.29);
  EXPECT_FALSE(figures.scenarios.at("H01").contains("note")) << "only numbers are figures";
  EXPECT_EQ(figures.scenarios.at("H03").at("cudnn_tflops"), 593.2);
  EXPECT_GT(figures.seconds, 0.0);
  // The record keeps it as written.
  EXPECT_EQ(to_json(figures)["scenarios"]["H03"]["cudnn_tflops"], 593.2);
}

TEST(PeerFigures, AFailingCommandIsAnErrorThatSaysWhyNeverAnException) {
  testing::TempFolder folder("kseek-peers");
  auto figures = run_script(folder, "echo 'torch: no CUDA device' >&2\nexit 3\n");
  ASSERT_TRUE(figures.error);
  EXPECT_EQ(*figures.error, "the peer command exited with code 3 (its last line: torch: no CUDA device)");
  EXPECT_TRUE(figures.scenarios.empty());

  figures = run_script(folder, "echo done\n");
  ASSERT_TRUE(figures.error);
  EXPECT_EQ(*figures.error, "the peer command wrote no document to $KSEEK_PEER_FIGURES (its last line: done)");

  figures = run_script(folder, "echo '{\"rows\": [' > \"$KSEEK_PEER_FIGURES\"\n");
  ASSERT_TRUE(figures.error);
  EXPECT_NE(figures.error->find("not valid JSON"), std::string::npos) << *figures.error;

  figures = run_script(folder, "echo '{\"rows\": [{\"cudnn_tflops\": 1}]}' > \"$KSEEK_PEER_FIGURES\"\n");
  ASSERT_TRUE(figures.error);
  EXPECT_EQ(*figures.error, "the peer command's document: rows[0] has no \"scenario\" string");

  PeerFiguresCommand missing;
  missing.command = {"kseek-no-such-peer-program"};
  figures = app::measure_peer_figures(missing, folder.path());
  ASSERT_TRUE(figures.error);
  EXPECT_NE(figures.error->find("kseek-no-such-peer-program"), std::string::npos) << *figures.error;
}

TEST(PeerFigures, ACommandPastItsTimeIsStoppedWithItsChildren) {
  testing::TempFolder folder("kseek-peers");
  const auto started = std::chrono::steady_clock::now();
  // The child sleep would keep a pipe or the group alive if only the shell were killed.
  const auto figures = run_script(folder, "sleep 30 &\nsleep 30\n", 0.5);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_TRUE(figures.error);
  EXPECT_NE(figures.error->find("did not finish within 0.5 s"), std::string::npos) << *figures.error;
  EXPECT_LT(seconds, 15.0) << "the group is terminated at the deadline, then killed after the grace";
}

TEST(PeerFigures, ADocumentNeedsRowsWithScenariosEachOnce) {
  PeerFigures figures;
  EXPECT_EQ(app::read_peer_document(json::array(), figures).error().message,
            "the document is a array, not a JSON object");
  EXPECT_EQ(app::read_peer_document(json::object(), figures).error().message, "the document has no \"rows\" array");
  EXPECT_EQ(app::read_peer_document({{"rows", json::array()}}, figures).error().message,
            "the document's \"rows\" is empty");
  figures = {};
  EXPECT_EQ(
      app::read_peer_document({{"rows", {{{"scenario", "H01"}}, {{"scenario", "H01"}}}}}, figures).error().message,
      "rows[1]: scenario \"H01\" appears twice");
  figures = {};
  ASSERT_TRUE(
      app::read_peer_document({{"torch", "2.11"}, {"rows", {{{"scenario", "H14"}, {"cudnn_ms", 0.95}}}}}, figures));
  EXPECT_EQ(figures.about.at("torch"), "2.11");
  EXPECT_EQ(figures.scenarios.at("H14").at("cudnn_ms"), 0.95);
}

}  // namespace
}  // namespace kseek

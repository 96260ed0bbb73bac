// The fixture's report in headless Chromium: it loads without a console message (no blocked fetch, no script),
// the parsed DOM holds the plots and no script element, and a screenshot is kept in the build folder (never compared).
// It must never pass unseen without a browser: with no chromium on PATH it skips saying why, and fails under CI=true.
#include <sys/stat.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kseek/core/report/html_report.hpp"
#include "kseek/core/report/report_model.hpp"
#include "kseek/core/util/files.hpp"
#include "report/report_test_support.hpp"
#include "support/run_command.hpp"
#include "support/skip_rule.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;
using kseek::testing::count_of;

// The first of the usual names of a Chromium executable on PATH; empty when none.
std::string find_chromium() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string dirs = path;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
    std::size_t start = 0;
    while (start <= dirs.size()) {
      const std::size_t end = std::min(dirs.find(':', start), dirs.size());
      const fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
      struct stat info {};
      if (!candidate.parent_path().empty() && ::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
          (info.st_mode & S_IXUSR)) {
        return candidate.string();
      }
      start = end + 1;
    }
  }
  return {};
}

struct BrowserRun {
  int exit_code = -1;
  std::string out;                   // stdout (the DOM with --dump-dom)
  std::vector<std::string> console;  // console messages: CSP violations, script errors
};

class ChromiumReport : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    if (chromium_.empty()) {
      KSEEK_SKIP_OR_FAIL_FOR_MISSING_TOOL(
          "no chromium, chromium-browser or google-chrome on PATH (scripts/setup.sh installs the distribution's "
          "chromium package where it has one)");
    }
    artifacts_ = fs::path(KSEEK_REPORT_ARTIFACT_DIR);
    fs::create_directories(artifacts_);
  }

  BrowserRun open(const fs::path& page, const std::string& mode) {
    const fs::path log = artifacts_ / (page.stem().string() + "-chromium.log");
    // A profile of this test's own: Chromium refuses a profile another instance holds (exit 21), and ctest runs
    // these tests in parallel.
    const fs::path profile = profile_.path() / "chromium-profile";
    const std::string command = fmt::format(
        "timeout 120 '{}' --headless --disable-gpu --no-sandbox --no-first-run --disable-extensions "
        "--disable-background-networking --user-data-dir='{}' --enable-logging=stderr --v=0 "
        "--window-size=1400,2000 {} 'file://{}' 2>'{}'",
        chromium_, profile.string(), mode, fs::absolute(page).string(), log.string());
    const auto run = kseek::testing::run_command(command);
    BrowserRun result{run.exit_code, run.out, {}};
    const std::string stderr_text = kseek::testing::slurp(log);
    std::size_t start = 0;
    while (start < stderr_text.size()) {
      const std::size_t end = std::min(stderr_text.find('\n', start), stderr_text.size());
      const std::string line = stderr_text.substr(start, end - start);
      if (line.find(":CONSOLE") != std::string::npos) result.console.push_back(line);
      start = end + 1;
    }
    return result;
  }

  fs::path write_fixture_report() {
    auto model = build_report_model(kseek::testing::synthetic_campaign());
    EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.error().message);
    const fs::path page = artifacts_ / "synthetic-report.html";
    EXPECT_TRUE(write_file_atomically(page, render_html_report(model.value())).ok());
    return page;
  }

  std::string chromium_;
  fs::path artifacts_;
  const kseek::testing::TempFolder profile_{"kseek_chromium"};
};

TEST_F(ChromiumReport, LoadsWithoutConsoleMessagesAndTheDomHoldsThePlots) {
  const fs::path page = write_fixture_report();
  const BrowserRun dom = open(page, "--dump-dom");
  ASSERT_EQ(dom.exit_code, 0) << dom.out;
  EXPECT_TRUE(dom.console.empty()) << "first console message: " << dom.console.front();
  EXPECT_NE(dom.out.find("</html>"), std::string::npos);
  EXPECT_EQ(count_of(dom.out, "<svg "), 3u);
  EXPECT_EQ(count_of(dom.out, "class=\"cell "), 30u);
  EXPECT_EQ(count_of(dom.out, "class=\"marker "), 10u);
  EXPECT_NE(dom.out.find("<section id=\"roofline\">"), std::string::npos);
  // The hostile steer text stayed text: the parser made no script element out of it.
  EXPECT_EQ(dom.out.find("<script"), std::string::npos);
  EXPECT_NE(dom.out.find("&lt;/svg&gt;&lt;script&gt;"), std::string::npos);
}

TEST_F(ChromiumReport, ScreenshotIsKeptAsAnArtifact) {
  const fs::path page = write_fixture_report();
  const fs::path png = artifacts_ / "synthetic-report.png";
  fs::remove(png);
  const BrowserRun shot = open(page, "--screenshot='" + png.string() + "'");
  ASSERT_EQ(shot.exit_code, 0) << shot.out;
  const std::string bytes = kseek::testing::slurp(png);
  ASSERT_GT(bytes.size(), 20000u) << png;  // a blank 1400x2000 page compresses to a few kB
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::cout << "screenshot: " << png.string() << "\n";
}

TEST_F(ChromiumReport, TheConsoleCheckSeesABlockedFetch) {
  // The control: the same policy on a page that tries to load an image and run a script must be reported.
  const fs::path page = artifacts_ / "blocked-fetch.html";
  kseek::testing::spit(page,
                       "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                       "'none'; style-src 'unsafe-inline'\"></head><body><img src=\"http://127.0.0.1:9/x.png\">"
                       "<script>document.title = 'ran';</script></body></html>");
  const BrowserRun run = open(page, "--dump-dom");
  ASSERT_EQ(run.exit_code, 0);
  EXPECT_GE(run.console.size(), 1u);
}

}  // namespace
}  // namespace kseek

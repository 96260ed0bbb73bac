// The build steps' forked processes: their address-space cap bounds what the work adds, not what the parent had
// already mapped; their time limit counts CPU seconds, with the wall-clock deadline as a backstop; work started without
// waiting ends like a program, and each child's CPU time is accounted. It must never let a step grow past its cap,
// nor fail one because its parent maps a lot or because the machine is busy.
#include <sys/mman.h>
#include <unistd.h>

#include <time.h>

#include <map>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "kseek/core/build/capped_process.hpp"

namespace {
using kseek::BuildClock;
using kseek::CappedRun;
using kseek::run_capped;
using Seconds = std::chrono::duration<double>;

constexpr std::uint64_t kMiB = 1ull << 20;

// Allocates `bytes` and writes one byte per page through a volatile pointer (so the compiler cannot elide the
// allocation), then answers "ok".
std::function<std::string()> allocate(std::uint64_t bytes) {
  return [bytes] {
    std::unique_ptr<char[]> block(new char[bytes]);
    volatile char* page = block.get();
    for (std::uint64_t i = 0; i < bytes; i += 4096) page[i] = 1;
    return std::string("ok");
  };
}

// A parent that maps far more than the cap (the CUDA driver reserves tens of GB once initialised): 32 GiB of address
// space reserved, no memory behind it.
class LargeParentMapping : public ::testing::Test {
 protected:
  void SetUp() override {
    reserved_ = ::mmap(nullptr, kReserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved_ == MAP_FAILED) GTEST_SKIP() << "cannot reserve 32 GiB of address space here";
  }
  void TearDown() override {
    if (reserved_ != MAP_FAILED) ::munmap(reserved_, kReserved);
  }
  static constexpr std::size_t kReserved = std::size_t{32} << 30;
  void* reserved_ = MAP_FAILED;
};

TEST_F(LargeParentMapping, WorkWithinTheCapRunsThoughTheParentMapsMoreThanTheCap) {
  const CappedRun run = run_capped(allocate(64 * kMiB), BuildClock::now() + std::chrono::seconds(30), 512 * kMiB);
  EXPECT_EQ(run.end, CappedRun::End::kFinished) << "exit " << run.exit_code;
  EXPECT_EQ(run.output, "ok");
}

TEST_F(LargeParentMapping, WorkBeyondTheCapStillRunsOutOfMemory) {
  const CappedRun run = run_capped(allocate(2048 * kMiB), BuildClock::now() + std::chrono::seconds(30), 256 * kMiB);
  EXPECT_EQ(run.end, CappedRun::End::kOutOfMemory) << "exit " << run.exit_code;
  EXPECT_TRUE(run.output.empty());
}

TEST(CappedProcess, TheCapHoldsInAnOrdinaryProcessToo) {
  const auto deadline = BuildClock::now() + std::chrono::seconds(30);
  EXPECT_EQ(run_capped(allocate(32 * kMiB), deadline, 512 * kMiB).end, CappedRun::End::kFinished);
  EXPECT_EQ(run_capped(allocate(2048 * kMiB), deadline, 256 * kMiB).end, CappedRun::End::kOutOfMemory);
}

// Work that computes forever.
std::string spin() {
  volatile unsigned long long n = 0;
  for (;;) n = n + 1;
}

TEST(CappedProcessTime, CpuBoundWorkEndsAtItsCpuLimitLongBeforeTheWallDeadline) {
  const auto started = BuildClock::now();
  const CappedRun run = run_capped(spin, started + std::chrono::seconds(60), 0, /*cpu_seconds=*/1.0);
  const double seconds = Seconds(BuildClock::now() - started).count();
  EXPECT_EQ(run.end, CappedRun::End::kTimedOut) << "exit " << run.exit_code;
  EXPECT_LT(seconds, 30.0) << "RLIMIT_CPU ends the child, not the 60 s deadline";
}

TEST(CappedProcessTime, WaitingIsNotCountedAgainstTheCpuLimit) {
  // 2.5 s of wall time and almost no CPU under a 1-second CPU limit: a busy machine (or a child that waits on I/O)
  // must not make the step fail.
  const CappedRun run = run_capped(
      [] {
        std::this_thread::sleep_for(std::chrono::milliseconds(2500));
        return std::string("ok");
      },
      BuildClock::now() + std::chrono::seconds(30), 0, /*cpu_seconds=*/1.0);
  EXPECT_EQ(run.end, CappedRun::End::kFinished) << "exit " << run.exit_code;
  EXPECT_EQ(run.output, "ok");
}

TEST(CappedProcessTime, WorkThatWaitsForeverEndsAtTheWallDeadline) {
  const auto started = BuildClock::now();
  const CappedRun run = run_capped(
      [] {
        ::sleep(60);
        return std::string("late");
      },
      started + std::chrono::seconds(1), 0, /*cpu_seconds=*/60.0);
  const double seconds = Seconds(BuildClock::now() - started).count();
  EXPECT_EQ(run.end, CappedRun::End::kTimedOut);
  EXPECT_LT(seconds, 10.0);
}

TEST(CappedProcessTime, AProgramPastItsCpuLimitEndsTimedOut) {
  std::vector<kseek::CappedProgram> running;
  running.push_back(kseek::start_capped({"/bin/sh", "-c", "while :; do :; done"}, 0, /*cpu_seconds=*/1.0));
  ASSERT_GT(running.front().pid, 0);
  const auto started = BuildClock::now();
  CappedRun finished;
  const int index = kseek::wait_any_capped(running, started + std::chrono::seconds(60), finished);
  EXPECT_EQ(index, 0) << "the program ended before the wall deadline";
  EXPECT_EQ(finished.end, CappedRun::End::kTimedOut) << "signal " << finished.exit_code;
  EXPECT_LT(Seconds(BuildClock::now() - started).count(), 30.0);
}

// CPU time of the calling process, all threads together.
double process_cpu_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

TEST(CappedWork, StartedWorkRunsBesideAProgramAndItsCpuTimeIsAccounted) {
  std::vector<kseek::CappedProgram> running;
  running.push_back(kseek::start_capped_work(
      [] {
        // Computes until its own clock says 0.3 CPU-seconds: what the parent reads must be at least that.
        volatile unsigned long long n = 0;
        while (process_cpu_seconds() < 0.3) n = n + 1;
        return std::string("done");
      },
      0, /*cpu_seconds=*/30.0));
  running.push_back(kseek::start_capped({"/bin/sh", "-c", "echo program"}, 0));
  ASSERT_GT(running[0].pid, 0);
  ASSERT_GT(running[1].pid, 0);
  std::map<std::string, CappedRun> ended;
  while (!running.empty()) {
    CappedRun finished;
    const int index = kseek::wait_any_capped(running, BuildClock::now() + std::chrono::seconds(60), finished);
    ASSERT_GE(index, 0) << "both end long before the deadline";
    running.erase(running.begin() + index);
    ended[finished.output] = finished;
  }
  ASSERT_EQ(ended.count("done"), 1u) << "the work's return value is its output";
  ASSERT_EQ(ended.count("program\n"), 1u);
  EXPECT_EQ(ended["done"].end, CappedRun::End::kFinished);
  EXPECT_EQ(ended["done"].exit_code, 0);
  EXPECT_GE(ended["done"].cpu_seconds, 0.3) << "the child's own CPU time, as the kernel accounted it";
}

TEST(CappedWork, StartedWorkPastItsCpuLimitEndsTimedOut) {
  std::vector<kseek::CappedProgram> running;
  running.push_back(kseek::start_capped_work(spin, 0, /*cpu_seconds=*/1.0));
  ASSERT_GT(running.front().pid, 0);
  CappedRun finished;
  EXPECT_EQ(kseek::wait_any_capped(running, BuildClock::now() + std::chrono::seconds(60), finished), 0);
  EXPECT_EQ(finished.end, CappedRun::End::kTimedOut) << "signal " << finished.exit_code;
}

TEST(CappedWork, StartedWorkOverTheCapExitsWithStatusThree) {
  std::vector<kseek::CappedProgram> running;
  running.push_back(kseek::start_capped_work(allocate(2048 * kMiB), 256 * kMiB));
  ASSERT_GT(running.front().pid, 0);
  CappedRun finished;
  EXPECT_EQ(kseek::wait_any_capped(running, BuildClock::now() + std::chrono::seconds(60), finished), 0);
  EXPECT_EQ(finished.end, CappedRun::End::kFinished);
  EXPECT_EQ(finished.exit_code, 3) << "std::bad_alloc under the cap";
  EXPECT_TRUE(finished.output.empty());
}

}  // namespace

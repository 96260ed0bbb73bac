// expect: FAILED — y is never written, so the outputs poisoned before the launch are what gets compared (W1).
// Adversarial corpus for example.softmax: a valid plan and a kernel with an empty body. It must never touch y.
#include <kseek/device/launch_plan.h>
#include <kseek/example/softmax_problem.h>

namespace {

using kseek::example::SoftmaxProblem;
constexpr int kThreads = 256;

__device__ void plan_begin(kseek::LaunchPlan* plan, unsigned launches, unsigned long long workspace_bytes) {
  plan->abi_version = kseek::kLaunchPlanAbiVersion;
  plan->num_launches = launches;
  plan->workspace_bytes = workspace_bytes;
  plan->num_tensor_maps = 0;
}

__device__ void plan_launch(kseek::LaunchPlan* plan, int index, const char* kernel, unsigned grid, unsigned block) {
  kseek::PlannedLaunch& l = plan->launches[index];
  int i = 0;
  for (; kernel[i] != '\0' && i < kseek::kKernelNameBytes - 1; ++i) l.kernel[i] = kernel[i];
  l.kernel[i] = '\0';
  l.grid = {grid, 1, 1};
  l.block = {block, 1, 1};
  l.cluster = {1, 1, 1};
  l.dynamic_smem_bytes = 0;
  l.reserved = 0;
}

}  // namespace

using Args = kseek::KernelArgs<SoftmaxProblem>;

extern "C" __global__ void kseek_plan(const SoftmaxProblem problem, kseek::LaunchPlan* plan) {
  plan_begin(plan, 1, 0);
  plan_launch(plan, 0, "w1_nothing", static_cast<unsigned>(problem.rows), kThreads);
}

extern "C" __global__ void w1_nothing(const __grid_constant__ Args args) {
  (void)args;  // the whole cheat: finish instantly, leave the output as the harness left it
}

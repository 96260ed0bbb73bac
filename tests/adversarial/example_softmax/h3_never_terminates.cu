// expect: TIMEOUT — every CTA spins on a flag nobody sets; the watchdog must kill the worker and go on with the next scenario (H3).
// Adversarial corpus for example.softmax: a kernel that never returns. It must never write y or leave the loop.
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

namespace {
__device__ volatile int g_release;  // zero-initialised and never written: the loop below cannot end
}  // namespace

extern "C" __global__ void kseek_plan(const SoftmaxProblem problem, kseek::LaunchPlan* plan) {
  plan_begin(plan, 1, 0);
  plan_launch(plan, 0, "h3_spin_forever", static_cast<unsigned>(problem.rows), kThreads);
}

extern "C" __global__ void h3_spin_forever(const __grid_constant__ Args args) {
  (void)args;
  // A volatile load each turn: the compiler may not assume the loop is free of side effects and delete it.
  while (g_release == 0) __nanosleep(1000);
}

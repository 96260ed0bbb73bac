// Seed of the export-test plugin: a copy kernel using the SDK's device header.
#include "kseek/device/launch_plan.h"
extern "C" __global__ void copy(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && kseek::kLaunchPlanAbiVersion > 0) y[i] = x[i];
}

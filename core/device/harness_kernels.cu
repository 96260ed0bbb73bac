// The harness's own device code, compiled by NVRTC next to every candidate: guard checks, output
// fingerprints and error statistics. It must never be callable by a candidate (separate module) and never
// depend on a header: NVRTC gets this file alone.

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

// Element types, in the order of kseek::ElementType (sdk/include/kseek/sdk/workload.hpp).
enum : int { kF32 = 0, kF16 = 1, kBF16 = 2, kFP8E4M3 = 3 };

__device__ __forceinline__ float half_to_float(u16 bits) {
  float out;
  asm("{ .reg .b16 h; mov.b16 h, %1; cvt.f32.f16 %0, h; }" : "=f"(out) : "h"(bits));  // PTX ISA 9.7.9.21 cvt
  return out;
}

__device__ __forceinline__ float e4m3_to_float(u8 bits) {
  u16 pair = bits;
  u32 halves;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(halves) : "h"(pair));  // PTX ISA 9.7.9.21 cvt (sm_89+)
  return half_to_float(static_cast<u16>(halves & 0xffff));
}

__device__ __forceinline__ float load_as_float(const void* base, int type, u64 i) {
  switch (type) {
    case kF32: return static_cast<const float*>(base)[i];
    case kF16: return half_to_float(static_cast<const u16*>(base)[i]);
    case kBF16: return __uint_as_float(static_cast<u32>(static_cast<const u16*>(base)[i]) << 16);
    default: return e4m3_to_float(static_cast<const u8*>(base)[i]);
  }
}

__device__ __forceinline__ u64 mix64(u64 x) {  // splitmix64 finaliser: every input bit moves every output bit
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct CountMismatchArgs {
  const u8* bytes;
  u64 count;
  u32 expected;
  u64* mismatches;  // accumulated
};

// Guard regions are filled with one byte value; any other byte means something wrote out of bounds (H2).
extern "C" __global__ void kseek_count_mismatch(const CountMismatchArgs args) {
  u64 local = 0;
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < args.count; i += (u64)gridDim.x * blockDim.x) {
    local += args.bytes[i] != static_cast<u8>(args.expected);
  }
  if (local) atomicAdd(args.mismatches, local);
}

struct FingerprintArgs {
  const u8* bytes;
  u64 count;  // bytes
  u64* hash;  // accumulated
};

// An order-independent 64-bit digest (sum of per-word hashes): identical bytes give identical sums however
// the threads are scheduled, so two runs can be compared bitwise (W10, R2, R3).
extern "C" __global__ void kseek_fingerprint(const FingerprintArgs args) {
  u64 local = 0;
  const u64 words = args.count / 8;
  const u64 stride = (u64)gridDim.x * blockDim.x;
  if ((reinterpret_cast<u64>(args.bytes) & 15) == 0) {
    // Every buffer the harness fingerprints starts 16-byte aligned: 16-byte loads instead of the byte loads
    // (a memcpy of unknown alignment may compile to eight byte loads per word; not measured apart).
    const ulonglong2* pairs = reinterpret_cast<const ulonglong2*>(args.bytes);
    for (u64 p = blockIdx.x * (u64)blockDim.x + threadIdx.x; p < words / 2; p += stride) {
      const ulonglong2 two = pairs[p];
      local += mix64(two.x ^ mix64(2 * p + 0x9e3779b97f4a7c15ull));
      local += mix64(two.y ^ mix64(2 * p + 1 + 0x9e3779b97f4a7c15ull));
    }
    if (blockIdx.x == 0 && threadIdx.x == 0 && (words & 1)) {
      const u64 i = words - 1;
      local += mix64(reinterpret_cast<const u64*>(args.bytes)[i] ^ mix64(i + 0x9e3779b97f4a7c15ull));
    }
  } else {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < words; i += stride) {
      u64 word;
      memcpy(&word, args.bytes + 8 * i, 8);
      local += mix64(word ^ mix64(i + 0x9e3779b97f4a7c15ull));
    }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    for (u64 i = 8 * words; i < args.count; ++i) local += mix64(args.bytes[i] ^ mix64(i + 0x632be59bd9b4e019ull));
  }
  if (local) atomicAdd(args.hash, local);
}

struct ErrorStats {
  u32 max_error_bits;  // bit pattern of a non-negative float: integer order is float order
  u32 max_abs_b_bits;  // the same for max |b| over finite b: the output's magnitude (rounding quanta)
  u64 nonfinite;       // elements of `a` that are NaN, or infinite where `b` is not the same infinity
};

struct CompareArgs {
  const void* a;  // the output under test
  int a_type;
  int b_type;
  const void* b;  // what it is measured against (usually the fp32 gold reference)
  u64 count;
  ErrorStats* stats;
  double* block_sums;  // one per block, summed by the host in block order
};

enum : int { kCompareThreads = 256 };  // must match the launch (kHarnessThreads in gpu_session.cpp)

// Max and non-finite count are order-independent, so atomics are fine for them. The error sum is a double, and a
// floating-point sum depends on its order: it is reduced in a fixed order within each block and the per-block sums
// go to the host, so two runs over the same bytes report the same mean to the last bit.
extern "C" __global__ void kseek_compare(const CompareArgs args) {
  __shared__ double warp_sums[kCompareThreads / 32];
  float local_max = 0.0f;
  float local_max_abs_b = 0.0f;
  double local_sum = 0.0;
  u64 local_nonfinite = 0;
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < args.count; i += (u64)gridDim.x * blockDim.x) {
    const float a = load_as_float(args.a, args.a_type, i);
    const float b = load_as_float(args.b, args.b_type, i);
    if (isfinite(b)) local_max_abs_b = fmaxf(local_max_abs_b, fabsf(b));
    if (!isfinite(a)) {
      // An infinity is right only where the reference holds the same one (e.g. the LSE of a row that sees no
      // key is -inf); NaN, or an infinity anywhere else, is a failure.
      if (!(isinf(a) && a == b)) ++local_nonfinite;
      continue;
    }
    const float e = fabsf(a - b);
    local_max = fmaxf(local_max, e);
    local_sum += e;
  }
  // Tree reduction within the warp: the same lanes combine in the same order on every run.
  for (int offset = 16; offset > 0; offset /= 2) {
    local_max = fmaxf(local_max, __shfl_xor_sync(0xffffffffu, local_max, offset));
    local_max_abs_b = fmaxf(local_max_abs_b, __shfl_xor_sync(0xffffffffu, local_max_abs_b, offset));
    local_sum += __shfl_xor_sync(0xffffffffu, local_sum, offset);
    local_nonfinite += __shfl_xor_sync(0xffffffffu, local_nonfinite, offset);
  }
  if ((threadIdx.x & 31) == 0) {
    warp_sums[threadIdx.x / 32] = local_sum;
    atomicMax(&args.stats->max_error_bits, __float_as_uint(local_max));
    atomicMax(&args.stats->max_abs_b_bits, __float_as_uint(local_max_abs_b));
    if (local_nonfinite) atomicAdd(&args.stats->nonfinite, local_nonfinite);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    double block_sum = 0.0;
    for (int w = 0; w < kCompareThreads / 32; ++w) block_sum += warp_sums[w];
    args.block_sums[blockIdx.x] = block_sum;
  }
}

struct SpinArgs {
  u64* sink;
  u64 bytes;
};

// Reads a buffer larger than the L2 so the next timed launch starts with a cold cache. A plain memset could
// be absorbed by L2's write path; reading every line evicts what the previous launch left. The loads carry the
// evict_last priority: a candidate may have marked lines evict_last (a load or prefetch with that policy, e.g. of the
// inputs it expects next), and the L2 evicts such lines only after every evict_normal line of their set, so a sweep
// at normal priority would leave them resident. Lines of equal priority replace each other, so a sweep of several
// L2 capacities at the highest priority displaces every candidate line. kseek_demote_l2 then lowers the flush's own
// lines, which would otherwise out-rank the timed kernel's.
extern "C" __global__ void kseek_flush_l2(const SpinArgs args) {
  u64 policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));  // PTX ISA: createpolicy
  const u64* words = args.sink;
  u64 acc = 0;
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < args.bytes / 8; i += (u64)gridDim.x * blockDim.x) {
    u64 word;
    asm volatile("ld.global.L2::cache_hint.u64 %0, [%1], %2;"  // PTX ISA: ld, .L2::cache_hint (sm_80+)
                 : "=l"(word)
                 : "l"(words + i), "l"(policy));
    acc ^= word;
  }
  if (acc == 0x1234567890abcdefull) args.sink[0] = acc;  // keeps the loads alive; practically never true
}

// Lowers every line of the flush buffer to evict_normal, so what kseek_flush_l2 left resident competes with the timed
// kernel's lines as ordinary data rather than out-ranking them.
extern "C" __global__ void kseek_demote_l2(const SpinArgs args) {
  const char* bytes = reinterpret_cast<const char*>(args.sink);
  for (u64 line = blockIdx.x * (u64)blockDim.x + threadIdx.x; line < args.bytes / 128;
       line += (u64)gridDim.x * blockDim.x) {
    asm volatile("applypriority.global.L2::evict_normal [%0], 128;"  // PTX ISA: applypriority (sm_80+)
                 ::"l"(bytes + 128 * line)
                 : "memory");
  }
}

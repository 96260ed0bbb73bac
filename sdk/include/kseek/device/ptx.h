// PTX wrappers that tensor-core kernels keep rewriting (sm_80 and later): shared-memory addresses, cp.async with its
// commit/wait groups, ldmatrix and mma.sync m16n8k16 with fp32 accumulators, for seeds, candidates and plugins.
// It must never include a header or hide a synchronisation: each wrapper is exactly its one instruction.
#pragma once

namespace kseek {
namespace device {

// Sections are cited by title and anchor of the PTX ISA (docs.nvidia.com/cuda/parallel-thread-execution/).

// The 32-bit .shared window address of a generic pointer into shared memory, the form every instruction below takes.
__device__ __forceinline__ unsigned shared_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

// PTX ISA "Data Movement and Conversion Instructions: cp.async" (#data-movement-and-conversion-instructions-cp-async).
// Copies 16 bytes global -> shared without passing through registers, bypassing L1 (.cg). Only the first
// `source_bytes` (0..16) are read; the rest of the 16 are zero-filled, which is how a tile's tail is padded. Both
// addresses must be 16-byte aligned. The copy is complete only after cp_async_wait and visible to other threads
// only after a barrier.
__device__ __forceinline__ void cp_async_16(unsigned shared_destination, const void* global_source,
                                            unsigned source_bytes = 16) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(shared_destination), "l"(global_source),
               "r"(source_bytes)
               : "memory");
}

// PTX ISA "Data Movement and Conversion Instructions: cp.async.commit-group"
// (#data-movement-and-conversion-instructions-cp-async-commit-group): closes the group of this thread's cp.async
// issued since the last commit. An empty group is legal and keeps group counting uniform in pipelines.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

// PTX ISA "Data Movement and Conversion Instructions: cp.async.wait-group"
// (#data-movement-and-conversion-instructions-cp-async-wait-group): waits until at most `kPending` of this thread's
// committed groups are still in flight (0: all done).
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}

// PTX ISA "Warp Level Matrix Data-Movement Instructions: ldmatrix" (#warp-level-matrix-instructions-ldmatrix).
// Four 8x8 matrices of 16-bit elements: lanes 8i..8i+7 give the addresses of the 8 rows (16 bytes each, 16-byte
// aligned) of matrix i, and every lane receives in r[i] the two elements (row lane/4, columns 2*(lane%4) and +1) of
// matrix i: exactly an mma.sync fragment register. Warp-collective.
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned shared_row_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_row_address));
}

// The same, transposed (.trans): lane receives (rows 2*(lane%4) and +1, column lane/4), for a B operand stored
// k-major ([k][n]) or a V tile.
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned shared_row_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_row_address));
}

// PTX ISA "Warp Level Matrix Multiply-Accumulate Instructions: mma" (#warp-level-matrix-instructions-mma), shape
// m16n8k16, row.col, bf16 inputs, fp32 accumulate: d = a * b + d for a 16x16 A, a 16x8 B, a 16x8 D. Fragments
// ("Matrix Fragments for mma.m16n8k16 with floating point type", #warp-level-matrix-fragment-mma-16816-float), with
// g = lane/4 and t = lane%4, each register a pair of adjacent columns 2t, 2t+1 (k for A, n for D):
//   a[0] = A[g][2t..]  a[1] = A[g+8][2t..]  a[2] = A[g][2t+8..]  a[3] = A[g+8][2t+8..]
//   b[0] = B[2t..][g]  b[1] = B[2t+8..][g]                      (k pairs of column g)
//   d[0..1] = D[g][2t, 2t+1]  d[2..3] = D[g+8][2t, 2t+1]
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The same with fp16 inputs. (mma reads and writes registers only, so it is not volatile: the compiler may
// schedule it; ldmatrix and cp.async touch memory and stay in order with barriers.)
__device__ __forceinline__ void mma_fp16_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

}  // namespace device
}  // namespace kseek

// The Hopper case-study set: the 26 rows of SCENARIOS.md 5a, written as canonical names.
// It must never drift from the table: sizes stay as printed there (the tests check FLOPs and bytes row by row).
#include "fa3_sets.hpp"
#include "kseek/attention/scenario_set_builder.hpp"

namespace kseek::plugins::fa3 {
namespace {

struct Row {
  std::string_view id;
  std::string_view purpose;
  std::string_view name;
};

// 5a. Decode, spec, mixed and MLA-decode rows carry aot=1 ("0 + AOT" in the table). H22 is one cascade scenario: its
// two calls (prefix 256 x 32768 non-causal + LSE, suffix causal + LSE) and the merge come from kernel_calls().
constexpr Row kHopperRows[] = {
    {"H01", "Uniform prompt prefill, Llama-3-8B", "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,seqs=8x4096"},
    {"H02", "Ragged prefill, odd GQA 7 (Qwen2.5-7B)", "hq=28,hkv=4,d=128,dtype=bf16,causal=1,page=32,seqs=RP"},
    {"H03", "Long single prompt", "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,seqs=32768"},
    {"H04", "FP16 MHA (Llama-2-7B)", "hq=32,hkv=32,d=128,dtype=fp16,causal=1,page=16,seqs=4x4096"},
    {"H05", "GPT-OSS full layer with sinks", "hq=64,hkv=8,d=64,dtype=bf16,causal=1,sinks=1,page=16,seqs=4x8192"},
    {"H06", "GPT-OSS sliding layer + sinks",
     "hq=64,hkv=8,d=64,dtype=bf16,causal=1,window=(127,0),sinks=1,page=16,seqs=16x8192"},
    {"H07", "Gemma-2 global layer, d256 + softcap",
     "hq=16,hkv=8,d=256,dtype=bf16,causal=1,softcap=50,page=16,seqs=4x8192"},
    {"H08", "Gemma-2 local layer",
     "hq=16,hkv=8,d=256,dtype=bf16,causal=1,window=(4095,0),softcap=50,page=16,seqs=2x16384"},
    {"H09", "Mistral SWA, window << seq", "hq=32,hkv=8,d=128,dtype=bf16,causal=1,window=(4095,0),page=16,seqs=2x32768"},
    {"H10", "d96 MHA (Phi-3)", "hq=32,hkv=32,d=96,dtype=bf16,causal=1,page=16,seqs=8x4096"},
    {"H11", "MLA prefill, diff dims (DeepSeek-V3 TP8), non-paged",
     "hq=16,hkv=16,d=192,dv=128,dtype=bf16,causal=1,page=0,seqs=4x8192"},
    {"H12", "FP8 prefill (fp8 KV cache)", "hq=32,hkv=8,d=128,dtype=fp8,causal=1,page=16,seqs=8x4096"},
    {"H13", "FP8 d256 + softcap", "hq=16,hkv=8,d=256,dtype=fp8,causal=1,softcap=50,page=16,seqs=2x16384"},
    {"H14", "Uniform decode (one-WG decode kernel)",
     "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,aot=1,seqs=256x(1,4096)"},
    {"H15", "Long-context decode, tiny batch (split-heavy)",
     "hq=64,hkv=8,d=128,dtype=bf16,causal=1,page=16,splits=32,aot=1,seqs=4x(1,131072)"},
    {"H16", "Ragged decode, GQA 8 (Llama-70B TP4)",
     "hq=16,hkv=2,d=128,dtype=bf16,causal=1,page=16,splits=32,aot=1,seqs=256x(1,GEO(256,32768))"},
    {"H17", "FP8 decode", "hq=32,hkv=8,d=128,dtype=fp8,causal=1,page=16,aot=1,seqs=256x(1,8192)"},
    {"H18", "GPT-OSS decode with sinks",
     "hq=64,hkv=8,d=64,dtype=bf16,causal=1,sinks=1,page=16,aot=1,seqs=256x(1,16384)"},
    {"H19", "Sliding-window + softcap decode (Gemma-2 local)",
     "hq=16,hkv=8,d=256,dtype=bf16,causal=1,window=(4095,0),softcap=50,page=16,aot=1,seqs=128x(1,16384)"},
    {"H20", "Spec-decode verify (q=4)", "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,aot=1,seqs=256x(4,4096)"},
    {"H21", "Mixed step: chunked prefill + decodes",
     "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,aot=1,"
     "seqs=2048+(2048,8192)+(1024,31744)+250x(1,GEO(2048,16384))"},
    {"H22", "Cascade: prefix non-causal + LSE, suffix causal + LSE, then merge",
     "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,cascade_prefix=32768,seqs=256x(1,LIN(512,2048))"},
    {"H23", "Vision encoder (Qwen2.5-VL ViT, d80 -> 96 kernel)",
     "hq=16,hkv=16,d=80,dtype=bf16,causal=0,page=0,seqs=[1024,2048,4096,4096,6144,8192,3072,4096]"},
    {"H24", "Audio encoder (Whisper)", "hq=20,hkv=20,d=64,dtype=fp16,causal=0,page=0,seqs=64x1500"},
    {"H25", "MLA decode via q_v (FLASH_ATTN_MLA)",
     "hq=16,hkv=1,d=64,dv=512,qv=1,dtype=bf16,causal=1,page=64,aot=1,seqs=128x(1,8192)"},
    {"H26", "Chunked-prefill continuation, MQA per rank, TMA paging (Llama-70B TP8)",
     "hq=8,hkv=1,d=128,dtype=bf16,causal=1,page=128,seqs=(8192,65536)"},
};

}  // namespace

Result<std::vector<attention::NamedScenario>> fa3_case_study_set(const attention::AttentionFamily& family) {
  attention::sets::SetBuilder builder(family, "");
  for (const Row& row : kHopperRows) builder.add_named(std::string(row.id), std::string(row.purpose), row.name);
  return std::move(builder).finish();
}

}  // namespace kseek::plugins::fa3

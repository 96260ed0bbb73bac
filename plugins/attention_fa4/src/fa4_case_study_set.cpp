// The Blackwell case-study set: the 26 rows of SCENARIOS.md 5c, written as canonical names.
// It must never drift from the table: sizes stay as printed there (the tests check FLOPs and bytes row by row).
#include "fa4_sets.hpp"
#include "kseek/attention/scenario_set_builder.hpp"

namespace kseek::plugins::fa4 {
namespace {

struct Row {
  std::string_view id;
  std::string_view purpose;
  std::string_view name;
};

// 5c. FA4 has no AOT metadata. "2 x RP lengths" and "2 x ViT list" double every length (the table's FLOPs are 4x the
// Hopper rows'); B20's "GEO x2" is the GEO list twice (FLOPs 2x). B23 appends the fresh 4096 prompt to H21's prefills.
// B25's mask is causal plus bidirectional image spans (FA4 realises it as causal=False + mask_mod).
constexpr Row kBlackwellRows[] = {
    {"B01", "Uniform prefill, cp.async paging", "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,seqs=8x8192"},
    {"B02", "Uniform prefill, TMA paging (page == tile_n)",
     "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=128,seqs=8x8192"},
    {"B03", "Ragged prefill, GQA 7", "hq=28,hkv=4,d=128,dtype=bf16,causal=1,page=32,seqs=RP*2"},
    {"B04", "Long single prompt (CLC scheduler, causal)", "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,seqs=32768"},
    {"B05", "FP16 MHA", "hq=32,hkv=32,d=128,dtype=fp16,causal=1,page=16,seqs=8x4096"},
    {"B06", "GPT-OSS full + learnable sink", "hq=64,hkv=8,d=64,dtype=bf16,causal=1,sinks=1,page=16,seqs=8x8192"},
    {"B07", "GPT-OSS window 128 + sink",
     "hq=64,hkv=8,d=64,dtype=bf16,causal=1,window=(127,0),sinks=1,page=16,seqs=32x8192"},
    {"B08", "Mistral window 4096", "hq=32,hkv=8,d=128,dtype=bf16,causal=1,window=(4095,0),page=16,seqs=4x32768"},
    {"B09", "Softcap at d128 (Grok-1 style)", "hq=48,hkv=8,d=128,dtype=bf16,causal=1,softcap=30,page=16,seqs=8x8192"},
    {"B10", "d96 MHA", "hq=32,hkv=32,d=96,dtype=bf16,causal=1,page=16,seqs=16x4096"},
    {"B11", "Audio encoder d64, non-paged", "hq=20,hkv=20,d=64,dtype=bf16,causal=0,page=0,seqs=128x1500"},
    {"B12", "Vision encoder d80",
     "hq=16,hkv=16,d=80,dtype=bf16,causal=0,page=0,seqs=[2048,4096,8192,8192,12288,16384,6144,8192]"},
    {"B13", "MLA prefill 192->128", "hq=16,hkv=16,d=192,dv=128,dtype=bf16,causal=1,page=0,seqs=8x8192"},
    {"B14", "hd256 dedicated kernel, prefill (Gemma-3-4B-like)",
     "hq=8,hkv=4,d=256,dtype=bf16,causal=1,page=128,splits=1,seqs=8x8192"},
    {"B15", "hd256 decode", "hq=8,hkv=4,d=256,dtype=bf16,causal=1,page=128,splits=1,seqs=256x(1,8192)"},
    {"B16", "FP8 prefill (SM100 full-FP8)", "hq=32,hkv=8,d=128,dtype=fp8,causal=1,page=16,seqs=16x4096"},
    {"B17", "FP8 decode", "hq=32,hkv=8,d=128,dtype=fp8,causal=1,page=16,seqs=512x(1,8192)"},
    {"B18", "BF16 uniform decode", "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,seqs=256x(1,8192)"},
    {"B19", "Long-context decode, split cap",
     "hq=64,hkv=8,d=128,dtype=bf16,causal=1,page=16,splits=32,seqs=8x(1,131072)"},
    {"B20", "Ragged decode, GQA 8",
     "hq=16,hkv=2,d=128,dtype=bf16,causal=1,page=64,splits=32,"
     "seqs=256x(1,GEO(256,32768))+256x(1,GEO(256,32768))"},
    {"B21", "GPT-OSS decode + sink", "hq=64,hkv=8,d=64,dtype=bf16,causal=1,sinks=1,page=16,seqs=256x(1,16384)"},
    {"B22", "Spec-decode verify q=4", "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,seqs=256x(4,8192)"},
    {"B23", "Mixed step (H21 + one fresh 4096 prompt)",
     "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,"
     "seqs=2048+(2048,8192)+(1024,31744)+4096+250x(1,GEO(2048,16384))"},
    {"B24", "Cascade prefix (non-causal + LSE) + suffix",
     "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,cascade_prefix=65536,seqs=512x(1,LIN(512,2048))"},
    {"B25", "Multimodal PrefixLM via mask_mod + aux ranges (Gemma-3-27B)",
     "hq=32,hkv=16,d=128,dtype=bf16,causal=1,prefix_lm=4x1024,page=16,seqs=8x8192"},
    {"B26", "Chunked continuation, MQA per rank, TMA paging",
     "hq=8,hkv=1,d=128,dtype=bf16,causal=1,page=128,seqs=2x(8192,65536)"},
};

}  // namespace

Result<std::vector<attention::NamedScenario>> fa4_case_study_set(const attention::AttentionFamily& family) {
  attention::sets::SetBuilder builder(family, "");
  for (const Row& row : kBlackwellRows) builder.add_named(std::string(row.id), std::string(row.purpose), row.name);
  return std::move(builder).finish();
}

}  // namespace kseek::plugins::fa4

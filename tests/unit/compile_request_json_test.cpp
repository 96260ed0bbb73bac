// A CompileRequest through JSON and back: every field survives (so another kseek makes the same build and finds the
// same cache entry), and a document that is not a request is refused with the key that is wrong. It must never pass
// with a field left at its default: the request it sends sets every one.
#include <gtest/gtest.h>

#include "kseek/core/build/build_cache.hpp"
#include "kseek/core/build/compile_request_json.hpp"

namespace kseek {
namespace {

// Every field away from its default, so that a field the codec forgot reads back different.
CompileRequest unusual_request() {
  CompileRequest r;
  r.source = {"candidate.cu", "__global__ void k() {}\n"};
  r.headers = {{"a.h", "#pragma once\n"}, {"dir/b.h", "// b\n"}};
  r.arch = "sm_100a";
  r.options = {"-DX=1", "--use_fast_math"};
  r.timeout_seconds = 12.5;
  r.max_cubin_bytes = 123456789;
  r.max_compile_memory_bytes = 5ull << 32;
  r.compile_threads = 7;
  r.toolkit_identity = "cuda-13.0 include 412 files";
  r.pipeline = BuildPipeline::kPerKernel;
  return r;
}

TEST(CompileRequestJson, EveryFieldComesBackAndSoDoesTheCacheKey) {
  const CompileRequest sent = unusual_request();
  const auto back = compile_request_from_json(compile_request_to_json(sent));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, sent);  // every field, those added later included (CompileRequest's operator==)
  EXPECT_EQ(build_cache_key(*back), build_cache_key(sent));
  for (const BuildPipeline p :
       {BuildPipeline::kDefault, BuildPipeline::kWholeProgram, BuildPipeline::kLinkTimeOptimized}) {
    CompileRequest r = sent;
    r.pipeline = p;
    const auto again = compile_request_from_json(compile_request_to_json(r));
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(again->pipeline, p);
  }
}

TEST(CompileRequestJson, WhatIsNotARequestIsRefusedNamingTheKey) {
  const nlohmann::json good = compile_request_to_json(unusual_request());
  nlohmann::json wrong_type = good;
  wrong_type["max_cubin_bytes"] = "big";
  auto read = compile_request_from_json(wrong_type);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("max_cubin_bytes"), std::string::npos) << read.error().message;

  nlohmann::json unknown = good;
  unknown["optimise_harder"] = true;
  read = compile_request_from_json(unknown);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("optimise_harder"), std::string::npos) << read.error().message;

  nlohmann::json pipeline = good;
  pipeline["pipeline"] = "fastest";
  read = compile_request_from_json(pipeline);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("per-kernel"), std::string::npos) << read.error().message;

  nlohmann::json header = good;
  header["headers"][0].erase("text");
  header["headers"][0]["txt"] = "";
  read = compile_request_from_json(header);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("headers"), std::string::npos) << read.error().message;
}

}  // namespace
}  // namespace kseek

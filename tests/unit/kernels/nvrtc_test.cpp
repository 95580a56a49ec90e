// NVRTC (loaded with dlopen): every kernel template compiles for every dtype we compute and every
// architecture this NVRTC supports, and pt2onnx's cubin reader confirms the architecture, the
// entry symbols and the parameter sizes. Without NVRTC these cases print why they skip.
#include <doctest/doctest.h>

#include <iostream>
#include <optional>
#include <string>

#include "common/error.h"
#include "function_builder.h"
#include "kernels/cubin.h"
#include "kernels/kernels.h"
#include "kernels/nvrtc.h"

namespace pt2onnx::kernels {
namespace {

// The NVRTC of this machine, or nullopt after printing why the caller skips.
std::optional<Nvrtc> nvrtc_or_skip(const char* test) {
  try {
    return Nvrtc::load();
  } catch (const Error& e) {
    std::cout << "SKIP " << test << ": NVRTC cannot be loaded: " << e.what() << "\n";
    MESSAGE("skipped: NVRTC cannot be loaded: " << e.what());
    return std::nullopt;
  }
}

TEST_CASE("a missing NVRTC fails with kCompile saying what to install") {
  try {
    Nvrtc::load("/nonexistent/libnvrtc.so.13");
    FAIL("loaded a library that does not exist");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCompile);
    CHECK(std::string(e.what()).find("Install") != std::string::npos);
    CHECK(std::string(e.what()).find("/nonexistent/libnvrtc.so.13") != std::string::npos);
  }
}

TEST_CASE("parse_archs without a supported list (--list-outputs, no NVRTC) checks the syntax only") {
  CHECK(parse_archs({"sm_70", "120", "sm_70"}, {}) == std::vector<std::string>{"sm_70", "sm_120"});
  CHECK_THROWS_AS(parse_archs({"compute_80"}, {}), Error);
  CHECK_THROWS_AS(parse_archs({}, {}), Error);
}

TEST_CASE("parse_archs validates against the supported list") {
  const std::vector<int> supported{75, 80, 86, 90, 100};
  CHECK(parse_archs({"sm_80", "90", "sm_90a", "sm_80"}, supported) == std::vector<std::string>{"sm_80", "sm_90", "sm_90a"});
  CHECK_THROWS_AS(parse_archs({"sm_70"}, supported), Error);
  CHECK_THROWS_AS(parse_archs({"compute_80"}, supported), Error);
  CHECK_THROWS_AS(parse_archs({}, supported), Error);
  try {
    parse_archs({"sm_72"}, supported);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUsage);
    CHECK(std::string(e.what()).find("sm_75, sm_80, sm_86, sm_90, sm_100") != std::string::npos);
  }
}

TEST_CASE("the cubin reader decodes parameter sizes of a hand-written kernel") {
  auto nvrtc = nvrtc_or_skip("cubin reader");
  if (!nvrtc) return;
  const std::string src =
      "struct Three { float a, b, c; };\n"
      "extern \"C\" __global__ void probe(int a, float* b, char c, double d, Three e, short f) {\n"
      "  if (a == 1) b[0] = (float)c + (float)d + e.a + e.b + e.c + (float)f;\n}\n";
  for (int sm : {80, 90}) {
    const std::string arch = "sm_" + std::to_string(sm);
    const NvrtcResult r = nvrtc->compile(src, "probe.cu", {"--gpu-architecture=" + arch});
    const CubinInfo info = read_cubin(r.cubin);
    CHECK(info.machine == 190);
    CHECK(info.elf_type == 2);
    CHECK(info.sm == sm);
    REQUIRE(info.kernels.size() == 1);
    const CubinKernel& k = info.kernels[0];
    CHECK(k.symbol == "probe");
    REQUIRE(k.params.size() == 6);
    const uint32_t sizes[] = {4, 8, 1, 8, 12, 2};
    for (size_t i = 0; i < 6; ++i) {
      CHECK(k.params[i].ordinal == i);
      CHECK(k.params[i].size == sizes[i]);
    }
    CHECK(k.params[1].offset == 8);  // the pointer is 8-aligned after the int
    CHECK(k.registers > 0);
  }
  CHECK_THROWS_AS(read_cubin(std::vector<char>{'n', 'o', 't', ' ', 'e', 'l', 'f'}), Error);
}

TEST_CASE("every template compiles for every dtype and supported architecture") {
  auto nvrtc = nvrtc_or_skip("template matrix");
  if (!nvrtc) return;
  std::vector<std::string> archs;
  for (int a : nvrtc->supported_archs()) archs.push_back("sm_" + std::to_string(a));
  std::vector<PlannedBundle> bundles;
  for (int dtype : {onnx::TensorProto::FLOAT, onnx::TensorProto::FLOAT16, onnx::TensorProto::BFLOAT16}) {
    PlannedBundle pb;
    pb.plan = generate_kernels(testing::every_template(dtype), testing::every_template_inputs(dtype));
    bundles.push_back(std::move(pb));
  }
  // compile_bundles checks every cubin: EM_CUDA executable, SM from e_flags, each entry symbol,
  // parameter count and sizes equal to the plan's.
  const std::vector<CompiledBundle> compiled = compile_bundles(*nvrtc, bundles, archs);
  REQUIRE(compiled.size() == 3);
  for (const auto& cb : compiled) {
    REQUIRE(cb.images.size() == archs.size());
    for (const auto& img : cb.images) {
      const CubinInfo info = read_cubin(img.cubin);
      CHECK(info.kernels.size() == cb.planned->plan.kernels.size());
      CHECK_MESSAGE(img.log.find("warning") == std::string::npos, img.arch << ": " << img.log);
      // Tensor cores for the 16-bit GEMMs and attention from sm_80 on (the SIMT fallback below).
      const bool sixteen = &cb != &compiled[0];
      const bool mma = img.ptx.find("mma.sync.aligned.m16n8k16") != std::string::npos;
      CHECK_MESSAGE(mma == (sixteen && std::stoi(img.arch.substr(3)) >= 80), img.arch << (sixteen ? " 16-bit" : " fp32"));
    }
  }
  MESSAGE("compiled " << bundles[0].plan.kernels.size() << " kernels x 3 dtypes x " << archs.size() << " archs");
}

}  // namespace
}  // namespace pt2onnx::kernels

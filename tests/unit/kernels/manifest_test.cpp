// The manifest writer and the bundle directory writer, with stand-in images (no NVRTC needed):
// fields a launcher needs, byte-identical output, atomic replacement, cleanup on failure.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "function_builder.h"
#include "kernels/expr.h"
#include "kernels/kernels.h"
#include "kernels/sha256.h"

namespace pt2onnx::kernels {
namespace {

namespace fs = std::filesystem;
using onnx::TensorProto;
using testing::FunctionBuilder;
using testing::tensor;

PlannedBundle linear_bundle() {
  FunctionBuilder f("Lin");
  f.input("x").input("w").input("b").output("y");
  auto& g = f.node("Gemm", {"x", "w", "b"}, {"y"});
  testing::set_int(g, "transB", 1);
  PlannedBundle pb;
  pb.plan = generate_kernels(f.get(), {tensor(TensorProto::FLOAT, {"s0", "16"}), tensor(TensorProto::FLOAT, {"8", "16"}),
                                       tensor(TensorProto::FLOAT, {"8"})});
  pb.call_sites.push_back({"node_y", {"act", "fc.weight", "fc.bias"}, {"out"}});
  return pb;
}

CompiledBundle fake_compiled(const PlannedBundle& pb) {
  CompiledBundle cb;
  cb.planned = &pb;
  for (const char* arch : {"sm_80", "sm_90"}) {
    CompiledImage img;
    img.arch = arch;
    img.cubin = {'c', 'u', 'b', arch[3], arch[4]};
    img.options = {std::string("--gpu-architecture=") + arch, "-std=c++17"};
    img.resources[pb.plan.kernels[0].symbol] = {32, 8320};
    cb.images.push_back(img);
  }
  return cb;
}

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

fs::path temp_dir(const std::string& tag) {
  fs::path d = fs::temp_directory_path() / ("pt2onnx_kernels_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST_CASE("sha256 of known strings") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex(std::string(1000, 'a')) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
  // Padding boundaries: 55 bytes fit one final block, 56 need two, 64 is a whole block.
  CHECK(sha256_hex(std::string(55, 'a')) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  CHECK(sha256_hex(std::string(56, 'a')) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  CHECK(sha256_hex(std::string(64, 'a')) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST_CASE("the manifest holds everything a launch needs") {
  const PlannedBundle pb = linear_bundle();
  const CompiledBundle cb = fake_compiled(pb);
  const auto m = nlohmann::json::parse(manifest_json(cb, 13, 0, "model.onnx"));
  CHECK(m["format"] == "pt2onnx.kernel-bundle");
  CHECK(m["format_version"] == nlohmann::json::array({1, 0}));
  CHECK(m["function"]["name"] == "Lin");
  CHECK(m["function"]["domain"] == "pt2onnx.hiera");
  CHECK(m["function"]["model"] == "model.onnx");
  CHECK(m["call_sites"][0]["inputs"][1] == "fc.weight");
  CHECK(m["symbols"]["s0"]["from"]["input"] == "x");
  CHECK(m["symbols"]["s0"]["from"]["axis"] == 0);
  CHECK(m["inputs"][0]["shape"] == nlohmann::json::array({"s0", 16}));
  CHECK(m["inputs"][0]["dtype"] == "FLOAT");
  CHECK(m["outputs"][0]["shape"] == nlohmann::json::array({"s0", 8}));
  CHECK(m["images"]["sm_90"]["file"] == "sm_90/Lin.cubin");
  CHECK(m["images"]["sm_90"]["sha256"] == sha256_hex("cub90"));
  CHECK(m["images"]["sm_80"]["bytes"] == 5);
  CHECK(m["images"]["sm_80"]["nvrtc"] == "13.0");
  CHECK(m["images"]["sm_80"]["min_driver"] == 13000);
  CHECK(m["source"]["sha256"] == sha256_hex(pb.plan.source));
  const auto& k = m["kernels"]["k0"];
  CHECK(k["symbol"] == "pt2o_Lin_k0");
  CHECK(k["block"] == nlohmann::json::array({256, 1, 1}));
  CHECK(k["params"].size() == 5);  // y, x, w, b, s0
  CHECK(k["params"][4]["type"] == "i64");
  CHECK(k["resources"]["sm_90"]["registers"] == 32);
  REQUIRE(m["launches"].size() == 1);
  const auto& l = m["launches"][0];
  CHECK(l["kernel"] == "k0");
  CHECK(eval_expr(l["grid"][1].get<std::string>(), {{"s0", 130}}) == 3);
  CHECK(l["args"][0]["output"] == "y");
  CHECK(l["args"][4]["i64"] == "s0");
  CHECK(m["numerics"]["tolerance"]["FLOAT"]["rtol"] == 1e-4);
}

TEST_CASE("write_bundles: byte-identical reruns, replacement, no temporary left") {
  const fs::path dir = temp_dir("write");
  const PlannedBundle pb = linear_bundle();
  const std::vector<CompiledBundle> cbs{fake_compiled(pb)};
  const auto written = write_bundles(cbs, 13, 0, dir, "m.onnx");
  REQUIRE(written.size() == 1);
  CHECK(written[0].dir == dir / "Lin.kernels");
  CHECK(written[0].kernels == 1);
  const std::string manifest = read(dir / "Lin.kernels/manifest.json");
  CHECK(read(dir / "Lin.kernels/src/Lin.cu") == pb.plan.source);
  CHECK(read(dir / "Lin.kernels/sm_80/Lin.cubin") == "cub80");
  CHECK(written[0].bytes == static_cast<int64_t>(manifest.size() + pb.plan.source.size() + 10));
  // A stale file in an older bundle disappears: the directory is replaced whole.
  std::ofstream(dir / "Lin.kernels/stale.txt") << "old";
  write_bundles(cbs, 13, 0, dir, "m.onnx");
  CHECK(read(dir / "Lin.kernels/manifest.json") == manifest);
  CHECK(!fs::exists(dir / "Lin.kernels/stale.txt"));
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++entries;
    CHECK(e.path().filename() == "Lin.kernels");
  }
  CHECK(entries == 1);
  fs::remove_all(dir);
}

TEST_CASE("write_bundles: an unwritable destination fails with kOutput and leaves nothing") {
  const fs::path dir = temp_dir("fail");
  std::ofstream(dir / "file") << "x";
  const PlannedBundle pb = linear_bundle();
  try {
    write_bundles({fake_compiled(pb)}, 13, 0, dir / "file" / "sub", "m.onnx");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kOutput);
  }
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) entries += e.path().filename() != "file";
  CHECK(entries == 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pt2onnx::kernels

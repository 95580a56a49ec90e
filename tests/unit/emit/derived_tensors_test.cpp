// DerivedTensors: BatchNorm-scaled weights computed from the archive's bytes on each read (any
// offset and length, as emit's chunked copies ask), permuted views of the same storage, each
// bound under a key no FQN can take, and derived from one derived before.
#include <doctest/doctest.h>

#include <cstring>

#include "archive/storages.h"
#include "emit/derived_tensors.h"
#include "emit/tensor_layout.h"

namespace pt2onnx::emit {
namespace {

archive::TensorData float_tensor(const std::string& name, const std::vector<float>& values,
                                 std::vector<int64_t> sizes, int64_t storage_offset = 0) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  archive::TensorData t;
  t.name = name;
  t.dtype = ir::DType::kFloat32;
  t.sizes = std::move(sizes);
  t.strides.assign(t.sizes.size(), 1);
  for (size_t d = t.sizes.size(); d-- > 1;) t.strides[d - 1] = t.strides[d] * t.sizes[d];
  t.storage_offset = storage_offset;
  t.storage = std::make_shared<archive::MemoryStorage>(std::move(bytes), archive::StorageLabel{"a.pt2", "w0"});
  return t;
}

model::DerivedWeight derived(const std::string& name, const std::string& source, model::DerivedWeight::How how) {
  return model::DerivedWeight{name, model::WeightBinding{source, source, false}, std::move(how)};
}

TEST_CASE("a scaled weight is the source times its channel's factor, at any offset and length") {
  // storage_offset 1: the tensor starts one float into its storage.
  const std::map<std::string, archive::TensorData> weights = {
      {"conv.weight", float_tensor("conv.weight", {99, 1, 2, 3, 4, 5, 6}, {2, 3}, 1)}};
  const std::map<std::string, archive::TensorData> constants;
  DerivedTensors tensors(weights, constants);
  REQUIRE(tensors.add(derived("conv.weight.bn_folded", "conv.weight", model::DerivedWeight::Scaled{{10.0, 0.5}, 3})));
  REQUIRE(tensors.bindings().size() == 1);
  const model::WeightBinding& binding = tensors.bindings().back();
  CHECK(binding.initializer == "conv.weight.bn_folded");
  CHECK(binding.fqn == "scaled conv.weight.bn_folded");
  const archive::TensorData& scaled = tensors.tensors().at(binding.fqn);
  CHECK(scaled.sizes == std::vector<int64_t>{2, 3});
  CHECK(scaled.strides == std::vector<int64_t>{3, 1});
  CHECK(scaled.storage->size() == 6 * sizeof(float));
  CHECK_FALSE(scaled.storage->file_offset().has_value());  // computed, never copied in-kernel

  std::vector<float> all(6);
  scaled.storage->read(0, sizeof(float) * 6, all.data());
  CHECK(all == std::vector<float>{10, 20, 30, 2, 2.5, 3});
  // An unaligned piece (bytes 6..13) equals the same bytes of the whole.
  std::vector<uint8_t> piece(8);
  scaled.storage->read(6, 8, piece.data());
  CHECK(std::memcmp(piece.data(), reinterpret_cast<const uint8_t*>(all.data()) + 6, 8) == 0);
  CHECK_THROWS(scaled.storage->read(20, 8, piece.data()));
}

TEST_CASE("a shifted weight is the float32 sum torch computes, under its own key") {
  const std::vector<float> w = {0.1f, -0.0f, 3.0f, 1e-8f, -1.0f};
  const std::map<std::string, archive::TensorData> weights = {{"norm.weight", float_tensor("norm.weight", w, {5})}};
  const std::map<std::string, archive::TensorData> constants;
  DerivedTensors tensors(weights, constants);
  REQUIRE(tensors.add(derived("norm.weight.shifted", "norm.weight", model::DerivedWeight::Scaled{{1.0}, 5, 1.0})));
  REQUIRE(tensors.add(derived("norm.weight.from_2", "norm.weight", model::DerivedWeight::Scaled{{-1.0}, 5, 2.0})));
  CHECK(tensors.bindings().front().fqn == "shifted norm.weight.shifted");
  std::vector<float> plus(5), minus(5);
  tensors.tensors().at("shifted norm.weight.shifted").storage->read(0, sizeof(float) * 5, plus.data());
  tensors.tensors().at("shifted norm.weight.from_2").storage->read(0, sizeof(float) * 5, minus.data());
  for (size_t i = 0; i < w.size(); ++i) {
    CHECK(plus[i] == w[i] + 1.0f);
    CHECK(minus[i] == 2.0f - w[i]);
  }
}

TEST_CASE("small float32 tensors are read; others are declined; an unknown source derives nothing") {
  CHECK(read_small_floats(float_tensor("bn.running_var", {1, 2}, {2})) == std::vector<float>{1, 2});
  archive::TensorData ints = float_tensor("ids", {1, 2}, {2});
  ints.dtype = ir::DType::kInt32;
  CHECK_FALSE(read_small_floats(ints).has_value());
  const std::map<std::string, archive::TensorData> none;
  DerivedTensors tensors(none, none);
  const model::DerivedWeight nothing = derived("x", "nothing", model::DerivedWeight::Scaled{{1.0}, 1});
  CHECK_FALSE(tensors.make(nothing).has_value());
  CHECK_FALSE(tensors.add(nothing));
  CHECK(tensors.size() == 0);
}

TEST_CASE("a permuted weight is a strided view of the same storage; emit's gather writes it transposed") {
  const std::map<std::string, archive::TensorData> weights = {
      {"conv.weight", float_tensor("conv.weight", {99, 1, 2, 3, 4, 5, 6}, {2, 3}, 1)}};
  const std::map<std::string, archive::TensorData> constants;
  DerivedTensors tensors(weights, constants);
  REQUIRE(tensors.add(derived("conv.weight.T", "conv.weight", model::DerivedWeight::Permuted{{1, 0}})));
  const model::WeightBinding& binding = tensors.bindings().back();
  CHECK(binding.initializer == "conv.weight.T");
  const archive::TensorData& view = tensors.tensors().at(binding.fqn);
  CHECK(view.sizes == std::vector<int64_t>{3, 2});
  CHECK(view.strides == std::vector<int64_t>{1, 3});
  CHECK(view.storage == weights.at("conv.weight").storage);  // no bytes copied
  CHECK(view.storage_offset == 1);
  // What emit writes: the row-major gather, here in chunks of 4 bytes.
  std::vector<float> out;
  gather_tensor(make_layout(view, "conv.weight.T"), *view.storage, 4, [&](const uint8_t* data, size_t n) {
    const size_t at = out.size();
    out.resize(at + n / sizeof(float));
    std::memcpy(out.data() + at, data, n);
  });
  CHECK(out == std::vector<float>{1, 4, 2, 5, 3, 6});
  CHECK_FALSE(tensors.make(derived("bad", "conv.weight", model::DerivedWeight::Permuted{{0, 0}})));  // not a permutation
  CHECK_FALSE(tensors.make(derived("bad", "conv.weight", model::DerivedWeight::Permuted{{0}})));     // wrong rank
  CHECK_FALSE(tensors.make(derived("x", "nothing", model::DerivedWeight::Permuted{{1, 0}})));

  // A weight derived from one derived before: its source has no fqn, only the initializer.
  model::DerivedWeight back = derived("conv.weight.T.T", "conv.weight.T", model::DerivedWeight::Permuted{{1, 0}});
  back.source.fqn.clear();
  REQUIRE(tensors.add(back));
  const archive::TensorData& again = tensors.tensors().at(tensors.bindings().back().fqn);
  CHECK(again.sizes == std::vector<int64_t>{2, 3});
  CHECK(again.strides == std::vector<int64_t>{3, 1});
}

TEST_CASE("the per-channel norms of a weight norm are read in tiles at wav2vec2-base's size") {
  // v of the position convolution, [768, 48, 128] (19 MB), normalised over dims 0 and 1 (dim=2):
  // many tiles, each channel spread over all of them.
  const std::vector<int64_t> sizes = {768, 48, 128};
  std::vector<float> v(static_cast<size_t>(768 * 48 * 128));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int64_t>(i % 1013) - 506) / 256.0f;
  const archive::TensorData tensor = float_tensor("pos_conv.original1", v, sizes);
  std::vector<double> expected(128, 0.0);
  for (size_t i = 0; i < v.size(); ++i) expected[i % 128] += double{v[i]} * double{v[i]};
  const std::optional<std::vector<double>> sums = channel_sums_of_squares(tensor, 128, 1);
  REQUIRE(sums.has_value());
  REQUIRE(sums->size() == 128);
  for (size_t c = 0; c < 128; ++c) CHECK((*sums)[c] == doctest::Approx(expected[c]).epsilon(1e-12));
  // Over every dim but 0 (dim=0): one channel per 48 * 128 elements.
  const std::optional<std::vector<double>> rows = channel_sums_of_squares(tensor, 768, 48 * 128);
  REQUIRE(rows.has_value());
  double row0 = 0;
  for (size_t i = 0; i < 48 * 128; ++i) row0 += double{v[i]} * double{v[i]};
  CHECK((*rows)[0] == doctest::Approx(row0).epsilon(1e-12));

  archive::TensorData ints = tensor;
  ints.dtype = ir::DType::kInt32;
  CHECK_FALSE(channel_sums_of_squares(ints, 128, 1).has_value());
}

}  // namespace
}  // namespace pt2onnx::emit

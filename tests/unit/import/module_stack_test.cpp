// nn_module_stack metadata, both generations.
#include <doctest/doctest.h>

#include "common/error.h"
#include "import/import_program.h"

using namespace pt2onnx;
using namespace pt2onnx::import;

TEST_CASE("current form: key,path,type entries joined by ';', outermost first") {
  // As torch 2.15 writes it (tests/unit/import/real_excerpts.h).
  auto frames = parse_module_stack(
      "L__self__,,__main__.Basic;L__self__seq,seq,torch.nn.modules.container.Sequential;"
      "L__self__seq.0,seq.0,torch.nn.modules.linear.Linear");
  REQUIRE(frames.size() == 3);
  CHECK(frames[0].key == "L__self__");
  CHECK(frames[0].path == "");
  CHECK(frames[0].type == "__main__.Basic");
  CHECK(frames[2].key == "L__self__seq.0");
  CHECK(frames[2].path == "seq.0");
  CHECK(frames[2].type == "torch.nn.modules.linear.Linear");
}

TEST_CASE("commas inside () and [] do not split a field") {
  auto frames = parse_module_stack(
      "L__self__,,torch.nn.modules.container.Sequential;"
      "fn_0,getattr(L['fn'], '0'),torch.nn.modules.container.Sequential;"
      "layers_slice,layers.slice(1, None, None),torch.nn.modules.container.Sequential");
  REQUIRE(frames.size() == 3);
  CHECK(frames[1].path == "getattr(L['fn'], '0')");
  CHECK(frames[2].path == "layers.slice(1, None, None)");
  CHECK(frames[2].type == "torch.nn.modules.container.Sequential");
}

TEST_CASE("2.1 form: key:(path,type)") {
  auto frames = parse_module_stack(
      "L__self__:(,__main__.M);L__self___fc:(L['self'].fc,torch.nn.modules.linear.Linear)");
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].key == "L__self__");
  CHECK(frames[0].path == "");
  CHECK(frames[0].type == "__main__.M");
  CHECK(frames[1].key == "L__self___fc");
  CHECK(frames[1].path == "L['self'].fc");
  CHECK(frames[1].type == "torch.nn.modules.linear.Linear");
}

TEST_CASE("2.1 form with commas in the path") {
  auto frames = parse_module_stack("fn_0:(getattr(L['fn'], '0'),torch.nn.modules.conv.Conv2d)");
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].path == "getattr(L['fn'], '0')");
  CHECK(frames[0].type == "torch.nn.modules.conv.Conv2d");
}

TEST_CASE("empty text and torch's empty-stack placeholder give no frames") {
  CHECK(parse_module_stack("").empty());
  CHECK(parse_module_stack("_empty_nn_module_stack_from_metadata_hook,_empty_nn_module_stack_from_metadata_hook,"
                           "_empty_nn_module_stack_from_metadata_hook")
            .empty());
}

TEST_CASE("an entry without three fields is refused") {
  CHECK_THROWS_AS(parse_module_stack("L__self__,__main__.M"), Error);
}

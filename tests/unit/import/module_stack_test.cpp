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

TEST_CASE("consecutive nodes with the same stack text share one stack") {
  ModuleStackReader reader;
  const std::string text = "L__self__,,m.Net;L__self__a,a,m.A";
  const ir::ModuleStack first = reader.read(text);
  const ir::ModuleStack second = reader.read(text);
  CHECK(first.same_as(second));
  const ir::ModuleStack other = reader.read("L__self__,,m.Net;L__self__b,b,m.B");
  CHECK_FALSE(other.same_as(first));
  CHECK(other[1].path == "b");
  // The same text again after another: its frames are found in the pool, not held again.
  const ir::ModuleStack again = reader.read(text);
  CHECK(again == first);
  CHECK(again.same_as(first));
  // Siblings share their outer frames.
  CHECK(other.prefix(1).same_as(first.prefix(1)));
  // A bad text is refused and leaves the reader as it was.
  CHECK_THROWS_AS(reader.read("oops"), Error);
  CHECK(reader.read(text).same_as(again));
}

TEST_CASE("a module stack reads like the vector of its frames; a prefix is a stack of its own") {
  const ir::ModuleStack stack = std::vector<ir::ModuleFrame>{{"k0", "", "m.Net"}, {"k1", "a", "m.A"}, {"k2", "a.b", "m.B"}};
  REQUIRE(stack.size() == 3);
  CHECK(stack.front().type == "m.Net");
  CHECK(stack.back().path == "a.b");
  const ir::ModuleStack outer = stack.prefix(2);
  CHECK(outer.size() == 2);
  CHECK(outer == ir::ModuleStack{{"k0", "", "m.Net"}, {"k1", "a", "m.A"}});
  CHECK(stack.prefix(3).same_as(stack));
  CHECK(ir::ModuleStack().empty());
  CHECK(ir::ModuleStack() == ir::ModuleStack(std::vector<ir::ModuleFrame>{}));
  size_t frames = 0;
  for (const ir::FrameView frame : stack) frames += frame.key.empty() ? 0 : 1;
  CHECK(frames == 3);
}

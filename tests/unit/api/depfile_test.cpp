// render_depfile(): Make escaping of the paths a conversion read and wrote.
#include <doctest/doctest.h>

#include <string>

#include "common/error.h"
#include "pt2onnx.h"

TEST_CASE("a depfile escapes spaces, '#', '$' and a backslash before them; outputs first") {
  pt2onnx::ConvertReport report;
  report.outputs = {"/o/a b.onnx", "/o/a b.onnx.data"};
  report.inputs = {"/i/x$y#1.pt2", "/i/back\\ slash\\", "/i/plain\\name"};
  CHECK(pt2onnx::render_depfile(report) ==
        "/o/a\\ b.onnx \\\n /o/a\\ b.onnx.data: \\\n /i/x$$y\\#1.pt2 \\\n /i/back\\\\\\ slash\\\\ \\\n /i/plain\\name\n");
}

TEST_CASE("a depfile refuses a path with ':' or a newline, naming it") {
  for (const char* bad : {"/o/a:b.onnx", "/o/a\nb.onnx"}) {
    pt2onnx::ConvertReport report;
    report.outputs = {bad};
    report.inputs = {"/i/m.pt2"};
    try {
      pt2onnx::render_depfile(report);
      FAIL("accepted " << bad);
    } catch (const pt2onnx::Error& e) {
      CHECK(e.code() == pt2onnx::ErrorCode::kUsage);
      CHECK(std::string(e.what()).find("--depfile") != std::string::npos);
    }
  }
}

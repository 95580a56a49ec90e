// Prints the version of the pt2onnx library it links and of the header it was built against.
#include <pt2onnx.h>

#include <cstdio>
#include <cstring>

int main() {
  std::printf("library %s, header %s, opsets %d-%d\n", pt2onnx::version(), PT2ONNX_VERSION_STRING, pt2onnx::kMinOpset,
              pt2onnx::kMaxOpset);
  return std::strcmp(pt2onnx::version(), PT2ONNX_VERSION_STRING) == 0 ? 0 : 1;
}

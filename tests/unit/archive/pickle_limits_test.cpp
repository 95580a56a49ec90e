// The unpickler's memory budget (--limit pickle-bytes): small pickles that would make gigabytes
// of values are refused early, naming the limit; real state dicts stay far below it.
#include <doctest/doctest.h>

#include "archive/pickle_reader.h"
#include "archive/test_errors.h"
#include "archive/test_pickle.h"
#include "archive/torch_pickle.h"
#include "common/limits.h"

namespace pt2onnx::archive {
namespace {

using testing::archive_error_of;
using testing::has;

std::string unpickle_error(const std::string& bytes) {
  TorchPickleHandler handler([](const std::string& key) -> std::shared_ptr<const Storage> {
    fail(ErrorCode::kArchive, "no data/" + key);
  });
  return archive_error_of([&] { read_pickle(bytes, handler, "w.pt: archive/data.pkl"); });
}

TEST_CASE("20 M NONE opcodes (the issue's 7.2 GB pickle) stop at the budget") {
  std::string bytes = "\x80\x02";
  bytes += std::string(20'000'000, 'N');
  bytes += '.';
  const std::string message = unpickle_error(bytes);
  CHECK(has(message, "w.pt: archive/data.pkl: byte "));
  CHECK(has(message, "exceeds the pickle-bytes limit (268435456 bytes); raise it with --limit pickle-bytes=N"));
}

TEST_CASE("copying a large list again and again through set() is charged for every copy") {
  // L = [None] * 100000 (one MARK, 100k NONE, LIST, memoized), then set(L) 20,000 times.
  std::string bytes = "\x80\x02(";
  bytes += std::string(100'000, 'N');
  bytes += std::string("l") + "q" + '\0';  // LIST, BINPUT 0
  bytes += "cbuiltins\nset\nq\x01";        // GLOBAL builtins.set, BINPUT 1
  for (int i = 0; i < 20'000; ++i) bytes += std::string("h\x01h") + '\0' + "\x85R0";  // set((L,)), POP
  bytes += "N.";
  const std::string message = unpickle_error(bytes);
  CHECK(has(message, "exceeds the pickle-bytes limit"));
}

TEST_CASE("a lower limit refuses sooner; the default leaves a real state dict alone") {
  const std::vector<testing::SavedTensor> tensors = {{"w", "FloatStorage", "0", 6, 0, {2, 3}, {3, 1}, true, ""}};
  const std::string pickle = testing::state_dict_pickle(tensors, 2);
  const Limits saved = limits();
  limits().pickle_bytes = 1000;
  CHECK(has(unpickle_error(pickle), "exceeds the pickle-bytes limit (1000 bytes)"));
  limits() = saved;
  // With the default budget the same pickle gets as far as its storage lookup.
  CHECK(has(unpickle_error(pickle), "no data/0"));
}

}  // namespace
}  // namespace pt2onnx::archive

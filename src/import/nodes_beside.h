// graph_module.graph.nodes of a large program read on a second thread while the caller's parse
// reads the rest of the text (the tensor values, the signature, the module call graph). The nodes
// are most of a deep model's text and of the import's time; the two parts are about even.
//
// Where the array lies, and where its nodes start, is guessed from the bytes torch writes around
// them, so that the second thread starts at once and indexes only a piece of the array at a time
// (a structural index of the whole array would add a fifth of the text's size to the peak). The
// caller's parse, which reads the whole text anyway, checks every guess: the nodes member starts
// where guessed, the tensor_values member follows it directly where guessed, and each piece
// starts where the array has an element (NodesBeside::Read::matches). Only then is what the second
// thread read taken, so the IR is the one a single parse makes; on any other text the caller reads
// it again on one thread (NodesSplitMismatch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "common/read_once_text.h"
#include "common/side_task.h"
#include "ir/program.h"

namespace pt2onnx::import {

// Programs whose nodes array is smaller than this are read on one thread: a thread and a second
// parse cost more than they save.
inline constexpr size_t kNodesBesideBytes = size_t{4} << 20;

// Byte offsets in the program text: the nodes array is [begin, end) ('[' to past ']'), and the
// tensor_values member's value starts at values_at.
struct NodesRange {
  size_t begin = 0;
  size_t end = 0;
  size_t values_at = 0;
};

// The first `"nodes": [` of the text and the first `], "tensor_values": ` after it, as
// json.dumps writes them; nullopt when either is missing, when another `"nodes": [` lies between
// (a subgraph of a control-flow node: its tensor_values would end the guess early) or when the
// array is shorter than `min_bytes`.
std::optional<NodesRange> guess_nodes_range(std::string_view text, size_t min_bytes = kNodesBesideBytes);

// Thrown by the caller's parse when the nodes are not where guessed: the text is read again on
// one thread.
struct NodesSplitMismatch {};

// Gives back the pages of one part of a text as its parser passes them, within that part only,
// so that parsers on two threads each let go of their own.
class ReadOnceWindow final : public ReadOnceText {
 public:
  ReadOnceWindow(ReadOnceText& whole, const char* begin, const char* end) : whole_(whole), begin_(begin), end_(end) {}
  std::string_view text() const override { return whole_.text(); }
  void release_before(const char* p) override;
  void evict() override { whole_.release_range(begin_, end_); }
  void release_range(const char* begin, const char* end) override;

 private:
  ReadOnceText& whole_;
  const char* begin_;
  const char* end_;
  const char* released_ = nullptr;  // what release_before gave back ends here (null: nothing)
};

struct NodesBesideRead {
  std::vector<ir::Node> nodes;
  std::vector<const char*> piece_starts;  // where each piece was guessed to start, in the text
  std::exception_ptr error;               // what the reader threw (FastGraphDeclined, an Error, ...)
  size_t error_piece = SIZE_MAX;          // in the piece of this index

  // Whether every piece starts at an element of the array, the first at its first, given where
  // the caller's parse found the elements (in order) and the node count.
  bool matches(const std::vector<const char*>& element_starts) const;
};

// When and how the nodes are read beside: tests make the pieces small and the thread optional.
using NodesBesideRun = SideTask<NodesBesideRead>::Run;
struct NodesBesideOptions {
  size_t min_bytes = kNodesBesideBytes;        // SIZE_MAX: never
  size_t piece_bytes = size_t{1} << 20;        // a piece's structural index stays in cache
  NodesBesideRun run = NodesBesideRun::kBeside;  // kInGet: on the caller's thread, after the rest
};

// The nodes array at `range` of `text` (padded: ReadOnceText::kPadding readable bytes past its
// end), read by the fast node reader in pieces of about options.piece_bytes: the second thread
// takes them from the front, and the caller, once its own part is read, from the back (help()),
// so that neither waits long for the other. Without a second thread (none to be had, or
// Run::kInGet) help() reads them all. `release`, when set, is told as the pieces are read.
// `max_depth` is the caller's parser's.
class NodesBeside {
 public:
  NodesBeside(std::string_view text, NodesRange range, ReadOnceText* release, bool node_metadata, size_t max_depth,
              const NodesBesideOptions& options);
  ~NodesBeside();
  NodesBeside(const NodesBeside&) = delete;
  NodesBeside& operator=(const NodesBeside&) = delete;

  // Reads pieces from the back on the caller's thread until none is left.
  void help();
  // Every node in order; the error (if any) of the first piece that failed. Call once, after help().
  NodesBesideRead get();

 private:
  struct Shared;
  std::unique_ptr<Shared> shared_;  // what both threads read: the pieces and who took which
  SideTask<NodesBesideRead> task_;
};

}  // namespace pt2onnx::import

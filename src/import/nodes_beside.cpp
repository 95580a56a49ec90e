#include "import/nodes_beside.h"

#include <string.h>  // memmem (GNU)

#include <algorithm>
#include <iterator>
#include <mutex>
#include <string>
#include <utility>

#include <simdjson.h>

#include "import/fast_graph.h"

namespace pt2onnx::import {

namespace {

namespace od = simdjson::ondemand;

constexpr std::string_view kNodesKey = R"("nodes": [)";
constexpr std::string_view kValuesAfterNodes = R"(], "tensor_values": )";
// Between two nodes: the end of one and the start of the next (a node's first member is its
// target). Only a guess of where a node starts: the caller's parse checks each.
constexpr std::string_view kBetweenNodes = R"(}, {"target": )";

// The offset of the first `needle` in text[from, to), or `to`.
size_t find_in(std::string_view text, size_t from, size_t to, std::string_view needle) {
  const void* at = ::memmem(text.data() + from, to - from, needle.data(), needle.size());
  return at ? static_cast<size_t>(static_cast<const char*>(at) - text.data()) : to;
}

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Pieces of the array's elements: [starts[i], ends[i]) each holds whole nodes if the guessed
// starts are right, and the pieces cover the array's elements in order.
struct Pieces {
  std::vector<const char*> starts;
  std::vector<const char*> ends;
  std::string_view piece(size_t i) const { return {starts[i], static_cast<size_t>(ends[i] - starts[i])}; }
};

Pieces cut_pieces(std::string_view text, NodesRange range, size_t piece_bytes) {
  size_t begin = range.begin + 1;  // past '['
  size_t end = range.end - 1;      // at ']'
  while (begin < end && is_space(text[begin])) ++begin;
  while (end > begin && is_space(text[end - 1])) --end;
  Pieces pieces;
  while (begin < end) {
    const size_t cut =
        end - begin > piece_bytes ? find_in(text, begin + piece_bytes, end, kBetweenNodes) : end;
    pieces.starts.push_back(text.data() + begin);
    if (cut == end) {
      pieces.ends.push_back(text.data() + end);
      break;
    }
    pieces.ends.push_back(text.data() + cut + 1);  // past the '}'
    begin = cut + 3;                               // at the next '{'
  }
  return pieces;
}

// Reads pieces, each as an array of its own ('[' piece ']', copied with simdjson's padding), with
// one parser and one node reader (module stacks shared across its pieces).
class PieceReader {
 public:
  PieceReader(bool node_metadata, size_t max_depth) : reader_(node_metadata), max_depth_(max_depth) {}

  void read(std::string_view piece, std::vector<ir::Node>& out) {
    buffer_.clear();
    buffer_.reserve(piece.size() + 2 + simdjson::SIMDJSON_PADDING);
    buffer_.append("[").append(piece).append("]");
    if (parser_.capacity() < buffer_.size())
      if (simdjson::error_code error = parser_.allocate(buffer_.size(), max_depth_)) throw simdjson::simdjson_error(error);
    od::document document = parser_.iterate(simdjson::padded_string_view(buffer_.data(), buffer_.size(), buffer_.capacity()));
    od::value nodes;
    if (simdjson::error_code error = document.get_value().get(nodes)) throw simdjson::simdjson_error(error);
    reader_.read(nodes, out, &parser_, nullptr);
    const char* rest = nullptr;
    if (document.current_location().get(rest) == simdjson::SUCCESS) throw FastGraphDeclined{};  // more than one array
  }

 private:
  FastNodesReader reader_;
  od::parser parser_;
  std::string buffer_;
  size_t max_depth_;
};

}  // namespace

std::optional<NodesRange> guess_nodes_range(std::string_view text, size_t min_bytes) {
  if (text.size() < min_bytes) return std::nullopt;  // small programs are not scanned at all
  const size_t key = find_in(text, 0, text.size(), kNodesKey);
  if (key == text.size()) return std::nullopt;
  NodesRange range;
  range.begin = key + kNodesKey.size() - 1;
  const size_t after = find_in(text, range.begin, text.size(), kValuesAfterNodes);
  if (after == text.size()) return std::nullopt;
  range.end = after + 1;
  range.values_at = after + kValuesAfterNodes.size();
  if (range.end - range.begin < std::max<size_t>(min_bytes, 2)) return std::nullopt;
  if (find_in(text, range.begin, range.end, kNodesKey) != range.end) return std::nullopt;
  return range;
}

void ReadOnceWindow::release_before(const char* p) {
  const char* from = released_ ? released_ : begin_;
  const char* to = std::min(p, end_);
  if (to <= from) return;
  whole_.release_range(from, to);
  released_ = to;
}

void ReadOnceWindow::release_range(const char* begin, const char* end) {
  const char* from = std::max(begin, begin_);
  const char* to = std::min(end, end_);
  if (to > from) whole_.release_range(from, to);
}

bool NodesBesideRead::matches(const std::vector<const char*>& element_starts) const {
  if (element_starts.empty() || piece_starts.empty()) return element_starts.empty() && piece_starts.empty();
  if (piece_starts.front() != element_starts.front()) return false;
  if (!error && nodes.size() != element_starts.size()) return false;
  size_t e = 0;
  for (const char* start : piece_starts) {  // both in text order
    while (e < element_starts.size() && element_starts[e] < start) ++e;
    if (e == element_starts.size() || element_starts[e] != start) return false;
  }
  return true;
}

struct NodesBeside::Shared {
  Pieces pieces;
  bool node_metadata = true;
  size_t max_depth = 0;
  ReadOnceText* release = nullptr;
  std::optional<ReadOnceWindow> front_window;  // the second thread's pages, given back from the front

  std::mutex mutex;
  size_t front = 0;  // pieces [front, back) are left
  size_t back = 0;
  bool stopped = false;  // a piece failed: the rest are left unread

  // The caller's pieces (help()), taken from the back: in decreasing order.
  std::vector<std::pair<size_t, std::vector<ir::Node>>> helped;
  std::exception_ptr help_error;
  size_t help_error_piece = SIZE_MAX;

  std::optional<size_t> take(bool from_front) {
    std::lock_guard lock(mutex);
    if (stopped || front == back) return std::nullopt;
    return from_front ? front++ : --back;
  }
  void stop() {
    std::lock_guard lock(mutex);
    stopped = true;
  }
};

namespace {

// All that the second thread reads, set before it starts.
template <typename Shared>
std::unique_ptr<Shared> shared_state(std::string_view text, NodesRange range, ReadOnceText* release, bool node_metadata,
                                     size_t max_depth, size_t piece_bytes) {
  auto shared = std::make_unique<Shared>();
  shared->pieces = cut_pieces(text, range, std::max<size_t>(piece_bytes, 1));
  shared->back = shared->pieces.starts.size();
  shared->node_metadata = node_metadata;
  shared->max_depth = max_depth;
  shared->release = release;
  if (release) shared->front_window.emplace(*release, text.data() + range.begin, text.data() + range.end);
  return shared;
}

}  // namespace

NodesBeside::NodesBeside(std::string_view text, NodesRange range, ReadOnceText* release, bool node_metadata,
                         size_t max_depth, const NodesBesideOptions& options)
    : shared_(shared_state<Shared>(text, range, release, node_metadata, max_depth, options.piece_bytes)),
      task_(
          [this, array_bytes = range.end - range.begin] {
            Shared& shared = *shared_;
            NodesBesideRead read;
            read.piece_starts = shared.pieces.starts;
            PieceReader reader(shared.node_metadata, shared.max_depth);
            while (std::optional<size_t> i = shared.take(true)) {
              try {
                reader.read(shared.pieces.piece(*i), read.nodes);
              } catch (...) {
                read.error = std::current_exception();
                read.error_piece = *i;
                shared.stop();
                break;
              }
              // Grown by doubling, the list would leave its outgrown copies with this thread's
              // allocator, where the caller's cannot reuse them: sized from the first piece.
              if (*i == 0)
                read.nodes.reserve(read.nodes.size() * array_bytes / std::max<size_t>(shared.pieces.piece(0).size(), 1) * 21 / 20 + 1);
              if (shared.front_window) shared.front_window->release_before(shared.pieces.ends[*i]);
            }
            return read;
          },
          options.run) {}

// A caller that failed before get() does not wait for the pieces not yet read.
NodesBeside::~NodesBeside() { shared_->stop(); }

void NodesBeside::help() {
  Shared& shared = *shared_;
  PieceReader reader(shared.node_metadata, shared.max_depth);
  while (std::optional<size_t> i = shared.take(false)) {
    std::vector<ir::Node> nodes;
    try {
      reader.read(shared.pieces.piece(*i), nodes);
    } catch (...) {
      shared.help_error = std::current_exception();
      shared.help_error_piece = *i;
      shared.stop();
      break;
    }
    shared.helped.emplace_back(*i, std::move(nodes));
    if (shared.release) shared.release->release_range(shared.pieces.starts[*i], shared.pieces.ends[*i]);
  }
}

NodesBesideRead NodesBeside::get() {
  NodesBesideRead read = task_.get();
  Shared& shared = *shared_;
  if (shared.help_error && (!read.error || shared.help_error_piece < read.error_piece)) {
    read.error = shared.help_error;
    read.error_piece = shared.help_error_piece;
  }
  for (auto it = shared.helped.rbegin(); it != shared.helped.rend(); ++it)
    std::move(it->second.begin(), it->second.end(), std::back_inserter(read.nodes));
  shared.helped.clear();
  return read;
}

}  // namespace pt2onnx::import

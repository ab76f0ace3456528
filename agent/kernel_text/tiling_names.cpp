#include "agent/kernel_text/tiling_names.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "agent/kernel_text/source_text.hpp"

namespace aopt::agent {

namespace {

bool has_any(const std::vector<std::string>& words, std::initializer_list<std::string_view> set) {
  return std::any_of(words.begin(), words.end(), [&](const std::string& w) {
    return std::find(set.begin(), set.end(), w) != set.end();
  });
}

}  // namespace

const char* to_string(tiling_role role) {
  switch (role) {
    case tiling_role::none:
      return "none";
    case tiling_role::block_dim:
      return "block_dim";
    case tiling_role::buffer_num:
      return "buffer_num";
    case tiling_role::ub_size:
      return "ub_size";
    case tiling_role::tile_count:
      return "tile_count";
    case tiling_role::tile_size:
      return "tile_size";
  }
  return "none";
}

bool never_tunable_name(std::string_view name) {
  std::vector<std::string> words = identifier_words(name);
  return has_any(words, {"align",  "alignment", "aligned",  "reserve", "reserved", "elem",
                         "elems",  "element",   "elements", "depth",   "mask",     "repeat",
                         "stride", "offset",    "index",    "idx",     "epsilon",  "eps",
                         "dtype",  "key",       "id",       "per",     "sizeof",   "bits"});
}

tiling_role classify_tiling_name(std::string_view name) {
  std::vector<std::string> words = identifier_words(name);
  if (words.empty()) return tiling_role::none;
  // ROWS_PER_TILE, TILES_PER_CORE are tile counts although "per" usually names a fixed ratio.
  const bool tile_word = has_any(words, {"tile", "tiles", "chunk", "chunks"});
  std::string rest;
  for (const std::string& w : words) rest += w == "per" ? "" : w + "_";
  if (never_tunable_name(tile_word ? rest : std::string(name))) {
    return tiling_role::none;
  }
  const bool count_word = has_any(words, {"num", "count", "cnt", "number"});
  if ((has_any(words, {"block"}) && (count_word || has_any(words, {"dim"}))) ||
      (has_any(words, {"core", "cores"}) && (count_word || has_any(words, {"used", "max"}))) ||
      has_any(words, {"blockdim"})) {
    return tiling_role::block_dim;
  }
  if (has_any(words, {"buffer", "buf", "slot", "slots", "pingpong"}) && count_word) {
    return tiling_role::buffer_num;
  }
  if (has_any(words, {"ub"}) && has_any(words, {"size", "bytes", "capacity", "len", "length"})) {
    return tiling_role::ub_size;
  }
  if ((has_any(words, {"tile", "tiles", "chunk", "chunks", "loop", "loops"}) &&
       (count_word || has_any(words, {"times"}))) ||
      (tile_word && has_any(words, {"rows", "row", "cols", "col"}))) {
    return tiling_role::tile_count;
  }
  if (tile_word) return tiling_role::tile_size;
  return tiling_role::none;
}

}  // namespace aopt::agent

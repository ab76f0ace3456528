// The evolve strategy's program database (docs/design.md §9, after OpenEvolve): whole-operator
// programs (T, K) with their latencies, kept in islands that evolve apart and an elite archive
// across them. A step draws its parent from one island (island = step mod islands): mostly the
// island's best, sometimes any member (exploration), sometimes an archive elite (exploitation
// across islands); its feasible child joins that island. Every migration_interval programs, each
// island's best is copied into the next island.
//
// The state is plain JSON (save/load) persisted with the episode, and every draw is a function of
// (seed, step), so a resumed episode picks the same parents.
//
// Thread-compatible: one thread at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/episode/program.hpp"
#include "base/status.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::agent {

struct program_database_options {
  uint32_t islands = 3;
  uint32_t island_size = 4;   // programs an island keeps (its fastest)
  uint32_t archive_size = 6;  // elites kept over all islands
  uint32_t migration_interval = 8;
  double explore = 0.25;  // chance the parent is a uniform member of the island
  double elite = 0.15;    // chance it is a uniform member of the archive
};

class program_database {
 public:
  explicit program_database(program_database_options options = {});

  // Every island and the archive start from `p` (the baseline).
  void seed(const program& p);
  uint32_t island_of(uint64_t step) const;
  // The parent of step `step`. REQUIRES: seeded.
  const program& select(uint64_t step, uint64_t seed) const;
  // A feasible child of `island`: kept when among the island's fastest; the archive likewise.
  void add(uint32_t island, const program& p);
  size_t size() const;

  nlohmann::json save() const;
  // invalid_argument when `j` is not a saved database.
  static result<program_database> load(const nlohmann::json& j,
                                       program_database_options options = {});

 private:
  void migrate();

  program_database_options options_;
  std::vector<std::vector<program>> islands_;  // each sorted fastest first
  std::vector<program> archive_;               // sorted fastest first
  uint64_t added_ = 0;
};

}  // namespace aopt::agent

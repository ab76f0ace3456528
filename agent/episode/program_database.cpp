#include "agent/episode/program_database.hpp"

#include <algorithm>

#include "agent/episode/seeded_rng.hpp"
#include "base/content_hash.hpp"

namespace aopt::agent {

program_database::program_database(program_database_options options)
    : options_(options), islands_(std::max<uint32_t>(1, options.islands)) {}

void program_database::seed(const program& p) {
  for (std::vector<program>& island : islands_) island = {p};
  archive_ = {p};
}

uint32_t program_database::island_of(uint64_t step) const {
  return static_cast<uint32_t>(step % islands_.size());
}

const program& program_database::select(uint64_t step, uint64_t seed) const {
  const std::string h = content_hash({"evolve-parent", std::to_string(seed), std::to_string(step)});
  seeded_rng rng(std::stoull(h.substr(0, 15), nullptr, 16));
  const std::vector<program>& island = islands_[island_of(step)];
  const double draw = rng.unit();
  if (draw < options_.elite && !archive_.empty()) return archive_[rng.below(archive_.size())];
  if (draw < options_.elite + options_.explore) return island[rng.below(island.size())];
  return island.front();
}

void program_database::add(uint32_t island, const program& p) {
  insert_ranked(islands_[island % islands_.size()], p, options_.island_size);
  insert_ranked(archive_, p, options_.archive_size);
  if (++added_ % options_.migration_interval == 0) migrate();
}

void program_database::migrate() {
  std::vector<program> bests;
  for (const std::vector<program>& island : islands_) bests.push_back(island.front());
  for (size_t i = 0; i < islands_.size(); ++i) {
    insert_ranked(islands_[(i + 1) % islands_.size()], bests[i], options_.island_size);
  }
}

size_t program_database::size() const {
  size_t n = 0;
  for (const std::vector<program>& island : islands_) n += island.size();
  return n;
}

nlohmann::json program_database::save() const {
  nlohmann::json islands = nlohmann::json::array();
  for (const std::vector<program>& island : islands_) islands.push_back(nlohmann::json(island));
  return {{"kind", "program-database"},
          {"islands", islands},
          {"archive", nlohmann::json(archive_)},
          {"added", added_}};
}

result<program_database> program_database::load(const nlohmann::json& j,
                                                program_database_options options) {
  if (!j.is_object() || j.value("kind", "") != "program-database")
    return invalid_argument("program database: not a saved database");
  try {
    program_database db(options);
    db.islands_.clear();
    for (const nlohmann::json& island : j.at("islands"))
      db.islands_.push_back(island.get<std::vector<program>>());
    if (db.islands_.empty()) return invalid_argument("program database: no islands");
    for (const std::vector<program>& island : db.islands_) {
      if (island.empty()) return invalid_argument("program database: an empty island");
    }
    db.archive_ = j.at("archive").get<std::vector<program>>();
    db.added_ = j.at("added").get<uint64_t>();
    return db;
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(std::string("program database: ") + e.what());
  }
}

}  // namespace aopt::agent

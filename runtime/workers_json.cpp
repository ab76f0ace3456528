#include "runtime/workers_json.hpp"

namespace aopt::runtime {

nlohmann::json workers_json(const actors::pool_stats& pool) {
  nlohmann::json owners = nlohmann::json::array();
  for (const actors::slot_owner_stats& o : pool.owners) {
    owners.push_back(
        {{"name", o.name}, {"slots", o.slots}, {"busy", o.busy}, {"evaluated", o.evaluated}});
  }
  return {{"joined", pool.workers},
          {"requeued", pool.requeued},
          {"duplicates", pool.duplicates},
          {"refused", pool.refused},
          {"packages_sent", pool.packages_sent},
          {"owners", std::move(owners)}};
}

}  // namespace aopt::runtime

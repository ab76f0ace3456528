// The episode states the campaign views summarize, parsed once per stored version. A progress
// event changes one episode, but a campaign view covers all of them: reparsing every stored
// state (sources, tiling history, tried hashes) on each change made a 48-operator campaign's
// view cost 48 full parses per event. Entries are keyed by the hash of the stored text, so a
// changed episode is always parsed again and an unchanged one never is; the cached states keep
// only the fields views read (sources, history, mutator state and tried hashes are dropped).
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/episode/episode_state.hpp"
#include "base/status.hpp"
#include "storage/store.hpp"

namespace aopt::server {

class episode_summary_cache {
 public:
  // The stored episodes of `campaign` in op-name order, without the fields named above.
  // Errors: the store's, and data_loss for a stored state that does not parse.
  result<std::vector<agent::episode_state>> load(const storage::store& db,
                                                 const std::string& campaign);

 private:
  struct entry {
    std::string text_hash;
    std::shared_ptr<const agent::episode_state> state;
  };
  std::mutex mutex_;
  std::map<std::string, entry> entries_;  // by campaign "/" op; guarded by mutex_
};

}  // namespace aopt::server

#include "actors/campaign.hpp"

#include <algorithm>

#include "actors/actor_error.hpp"
#include "actors/exception_text.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {
namespace {

struct campaign_actor_state {
  campaign_context ctx;
  size_t next = 0;
  size_t running = 0;
  campaign_summary summary;
  caf::typed_response_promise<campaign_summary> done;
  static inline const char* name = "campaign";
};

using campaign_self = campaign_actor::stateful_pointer<campaign_actor_state>;

void finish_if_idle(campaign_self self) {
  campaign_actor_state& st = self->state;
  if (st.running > 0) return;
  const bool stopping = st.ctx.stop_requested && st.ctx.stop_requested->load();
  if (st.next < st.ctx.episodes.size() && !stopping) return;
  st.done.deliver(st.summary);
  self->quit();
}

void launch_more(campaign_self self) {
  campaign_actor_state& st = self->state;
  const bool stopping = st.ctx.stop_requested && st.ctx.stop_requested->load();
  while (!stopping && st.running < std::max<uint32_t>(1, st.ctx.jobs) &&
         st.next < st.ctx.episodes.size()) {
    campaign_episode& e = st.ctx.episodes[st.next++];
    episode_context ec{e.op,           e.state,       st.ctx.pipeline,
                       st.ctx.journal, st.ctx.events, st.ctx.stop_requested};
    episode_actor episode = spawn_episode(self->system(), std::move(ec));
    st.running++;
    const std::string op = e.state.op_name;
    self->request(episode, caf::infinite, run_atom_v)
        .then(
            [=](const episode_summary& s) {
              self->state.summary.episodes.push_back(s);
              self->state.running--;
              launch_more(self);
            },
            [=](caf::error& err) {
              self->state.summary.episodes.push_back(
                  episode_summary{op, {}, "episode actor: " + to_status(err).message()});
              self->state.running--;
              launch_more(self);
            });
  }
  finish_if_idle(self);
}

}  // namespace

campaign_actor spawn_campaign(caf::actor_system& sys, campaign_context context) {
  return sys.spawn(
      [](campaign_self self, campaign_context ctx) -> campaign_actor::behavior_type {
        self->state.ctx = std::move(ctx);
        // Whatever escapes a handler ends the campaign with what it has, answered, not a run
        // waiting for ever.
        self->set_exception_handler([self](std::exception_ptr& e) -> caf::error {
          const std::string why = "campaign actor: " + exception_text(e);
          if (self->state.done.pending()) {
            self->state.summary.episodes.push_back(episode_summary{"campaign", {}, why});
            self->state.done.deliver(self->state.summary);
          }
          return to_actor_error(internal_error(why));
        });
        return {[=](run_atom) -> caf::result<campaign_summary> {
          self->state.done = self->make_response_promise<campaign_summary>();
          launch_more(self);
          return self->state.done;
        }};
      },
      std::move(context));
}

}  // namespace aopt::actors

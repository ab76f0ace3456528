#include "actors/episode.hpp"

#include <chrono>
#include <variant>

#include "actors/actor_error.hpp"
#include "actors/exception_text.hpp"
#include "actors/messages.hpp"
#include "agent/episode/episode.hpp"
#include "agent/episode/outcome_reason.hpp"
#include "agent/evaluation/evaluation_service.hpp"

namespace aopt::actors {
namespace {

struct episode_actor_state {
  episode_context ctx;
  std::unique_ptr<agent::episode_engine> engine;
  caf::typed_response_promise<episode_summary> done;
  static inline const char* name = "episode";
};

using episode_self = episode_actor::stateful_pointer<episode_actor_state>;

template <class... Fs>
struct overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
overloaded(Fs...) -> overloaded<Fs...>;

double now_seconds() {
  static const auto start = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

agent::campaign_event make_event(const agent::episode_state& s, agent::campaign_event::kind type) {
  agent::campaign_event e;
  e.type = type;
  e.campaign = s.campaign;
  e.op = s.op_name;
  e.round = s.round;
  e.stage = s.stage;
  e.candidates = s.candidates;
  e.budget = s.config.budget;
  e.baseline_us = s.baseline_us;
  e.best_us = s.best_us;
  e.status = to_string(s.phase);
  e.timestamp_s = now_seconds();
  return e;
}

void publish(episode_self self, const agent::campaign_event& e) {
  if (self->state.ctx.events) self->state.ctx.events->publish(e);
}

void finish(episode_self self, const std::string& error) {
  const agent::episode_state& s = self->state.engine->state();
  agent::campaign_event e = make_event(s, agent::campaign_event::kind::episode_finished);
  e.origin = agent::outcome_reason(s);
  publish(self, e);
  self->state.done.deliver(episode_summary{s.op_name, make_local(s), error});
  self->quit();
}

// Persists one transition; on failure the episode stops (it must not run ahead of its journal).
bool persist(episode_self self, const std::optional<agent::candidate_record>& record,
             const std::optional<agent::eval_cache_entry>& cache_entry) {
  status st = self->state.ctx.journal->record(self->state.engine->state(), record, cache_entry);
  if (!st.ok()) {
    finish(self, "persisting " + self->state.engine->state().op_name + ": " + st.to_string());
    return false;
  }
  if (record) {
    agent::campaign_event e =
        make_event(self->state.engine->state(), agent::campaign_event::kind::candidate_evaluated);
    e.status = record->result.error_kind.empty() ? npu::to_string(record->result.status)
                                                 : record->result.error_kind;
    e.origin = record->origin;
    e.accepted = record->accepted;
    // The state has already moved on; the event describes the candidate's own step.
    e.round = record->round;
    e.stage = record->stage == 0 ? 1 : record->stage;
    publish(self, e);
  }
  return true;
}

template <class T>
result<T> from_error(const caf::error& e, const char* role) {
  return to_status(e).with_context(std::string(role) + " actor");
}

void step(episode_self self);

npu::eval_result evaluator_failure(const caf::error& e) {
  npu::eval_result r;
  r.status = npu::eval_status::infra_error;
  r.message = "evaluator actor: " + to_status(e).to_string();
  return r;
}

// The hooked role `name` of the pipeline; null when none is running under that name.
hook_role_actor hooked_actor(episode_self self, const std::string& name) {
  for (const hooked_role& h : self->state.ctx.pipeline.hooked) {
    if (h.name == name) return h.actor;
  }
  return {};
}

// Asks `roles[i..]` one after another, each with its own persisted state, collecting their
// answers until `last` says an answer ends the round (a veto); then hands them all to `done`.
// `relay` passes an answer on to the next role's request (a verifier's amended result).
template <class Atom, class Request, class Reply, class Last, class Relay, class Done>
void ask_in_turn(episode_self self, std::vector<std::string> roles, size_t i, Request request,
                 std::vector<agent::role_answer<Reply>> answers, Last last, Relay relay,
                 Done done) {
  if (i == roles.size()) return done(answers);
  const std::string role = roles[i];
  const hook_role_actor actor = hooked_actor(self, role);
  auto next = [=](result<Reply> answer) mutable {
    answers.push_back({role, std::move(answer)});
    if (answers.back().answer.ok()) {
      if (last(*answers.back().answer)) return done(answers);
      relay(request, *answers.back().answer);
    }
    ask_in_turn<Atom>(self, roles, i + 1, request, answers, last, relay, done);
  };
  if (!actor) return next(internal_error("no role named " + role + " runs in this pipeline"));
  const auto& states = self->state.engine->state().role_states;
  auto it = states.find(role);
  request.role_state = it == states.end() ? nlohmann::json() : it->second;
  self->request(actor, caf::infinite, Atom{}, make_local(request))
      .then([=](const local<result<Reply>>& o) mutable { next(*o.value); },
            [=](caf::error& e) mutable { next(from_error<Reply>(e, role.c_str())); });
}

template <class Reply>
bool never_last(const Reply&) {
  return false;
}

template <class Request, class Reply>
void relay_nothing(Request&, const Reply&) {}

void relay_verified(agent::verification_request& next, const agent::verification_reply& reply) {
  next.result = reply.result;
}

// Asks the verifiers of `need` in turn, each with the result the one before it left.
template <class Done>
void verify(episode_self self, const agent::need_verification& need, Done done) {
  ask_in_turn<verify_atom>(self, need.roles, 0, need.request,
                           std::vector<agent::role_answer<agent::verification_reply>>{},
                           never_last<agent::verification_reply>, relay_verified, done);
}

// Persists what the verifiers' own evaluations may leave in the evaluation cache, each entry with
// the current state; false when a write failed (the episode has then finished with the reason).
bool persist_verifier_entries(
    episode_self self, const std::vector<agent::role_answer<agent::verification_reply>>& answers) {
  for (const auto& a : answers) {
    if (!a.answer.ok()) continue;
    for (const agent::eval_cache_entry& entry : a.answer->cache_entries) {
      if (!persist(self, std::nullopt, entry)) return false;
    }
  }
  return true;
}

// Hands the engine the outcome of the evaluation it asked for, tells the observers, persists it
// with its cache entry (none for a failed evaluator call: `cache_key` empty) and the observers'
// states in one transition, and takes the next step.
void record_evaluation(episode_self self, const std::string& cache_key, const npu::eval_result& r) {
  agent::candidate_record record = self->state.engine->on_evaluation(r);
  auto save = [self, record, cache_key, r] {
    if (persist(self, record, agent::eval_cache_entry_for(cache_key, r))) step(self);
  };
  std::optional<agent::observation> event = self->state.engine->pending_observation();
  if (!event) return save();
  ask_in_turn<observe_atom>(
      self, self->state.engine->state().config.observers, 0, *event,
      std::vector<agent::role_answer<nlohmann::json>>{}, never_last<nlohmann::json>,
      relay_nothing<agent::observation, nlohmann::json>,
      [self, save](const std::vector<agent::role_answer<nlohmann::json>>& states) {
        self->state.engine->on_observed(states);
        save();
      });
}

// Hands the device's result to the verifiers (an improvement's cold confirmation among them),
// then records what they leave under the evaluation's cache key.
void verify_then_record(episode_self self, const std::string& cache_key, npu::eval_result r) {
  std::optional<agent::need_verification> need = self->state.engine->verification_of(r);
  if (!need) return record_evaluation(self, cache_key, r);
  verify(self, *need,
         [self, cache_key,
          r](const std::vector<agent::role_answer<agent::verification_reply>>& answers) {
           if (!persist_verifier_entries(self, answers)) return;
           record_evaluation(self, cache_key, self->state.engine->verified_result(r, answers));
         });
}

void evaluate(episode_self self, const agent::evaluation_request& request) {
  const episode_context& ctx = self->state.ctx;
  evaluation_job job{ctx.state.campaign, ctx.op->dir.string(), request.tiling, request.kernel,
                     ctx.op};
  self->request(ctx.pipeline.evaluator, caf::infinite, evaluate_atom_v, job)
      .then(
          [=](const evaluation_done& done) {
            verify_then_record(self, done.cache_key, done.result);
          },
          [=](caf::error& e) { verify_then_record(self, "", evaluator_failure(e)); });
}

void continue_after(episode_self self, const std::optional<agent::candidate_record>& record) {
  if (record && !persist(self, record, std::nullopt)) return;
  step(self);
}

void step(episode_self self) {
  episode_context& ctx = self->state.ctx;
  agent::episode_engine& engine = *self->state.engine;
  if (ctx.stop_requested && ctx.stop_requested->load()) return finish(self, "");
  agent::episode_action action = engine.next();
  std::visit(
      overloaded{
          [&](const agent::need_mutation& m) {
            self->request(ctx.pipeline.mutator, caf::infinite, mutate_atom_v, make_local(m.request))
                .then(
                    [=](const mutation_outcome& o) {
                      continue_after(self, self->state.engine->on_mutation(
                                               *o.value, self->state.ctx.pipeline.mutator_policy));
                    },
                    [=](caf::error& e) {
                      continue_after(self, self->state.engine->on_mutation(
                                               from_error<agent::mutation_reply>(e, "mutator"),
                                               self->state.ctx.pipeline.mutator_policy));
                    });
          },
          [&](const agent::need_diagnosis& d) {
            // A pipeline without a diagnoser refines from an empty diagnosis.
            if (!ctx.pipeline.diagnoser)
              return continue_after(self, engine.on_diagnosis(agent::diagnosis{}));
            self->request(ctx.pipeline.diagnoser, caf::infinite, diagnose_atom_v,
                          make_local(d.request))
                .then(
                    [=](const diagnosis_outcome& o) {
                      continue_after(self, self->state.engine->on_diagnosis(*o.value));
                    },
                    [=](caf::error& e) {
                      continue_after(self, self->state.engine->on_diagnosis(
                                               from_error<agent::diagnosis>(e, "diagnoser")));
                    });
          },
          [&](const agent::need_retrieval& r) {
            // A pipeline without a retriever refines without experience tuples.
            if (!ctx.pipeline.retriever) {
              engine.on_retrieval(std::vector<agent::tuple_ref>{});
              return step(self);
            }
            self->request(ctx.pipeline.retriever, caf::infinite, retrieve_atom_v, make_local(r))
                .then(
                    [=](const retrieval_outcome& o) {
                      self->state.engine->on_retrieval(*o.value);
                      step(self);
                    },
                    [=](caf::error& e) {
                      self->state.engine->on_retrieval(
                          from_error<std::vector<agent::tuple_ref>>(e, "retriever"));
                      step(self);
                    });
          },
          [&](const agent::need_refinement& r) {
            self->request(ctx.pipeline.refiner, caf::infinite, refine_atom_v, make_local(r.request))
                .then(
                    [=](const refinement_outcome& o) {
                      continue_after(self, self->state.engine->on_refinement(
                                               *o.value, self->state.ctx.pipeline.refiner_policy));
                    },
                    [=](caf::error& e) {
                      continue_after(
                          self, self->state.engine->on_refinement(
                                    from_error<std::vector<agent::kernel_candidate>>(e, "refiner"),
                                    self->state.ctx.pipeline.refiner_policy));
                    });
          },
          [&](const agent::need_annotation& a) {
            ask_in_turn<annotate_atom>(
                self, a.roles, 0, a.request,
                std::vector<agent::role_answer<agent::annotation_reply>>{},
                never_last<agent::annotation_reply>,
                relay_nothing<agent::annotation_request, agent::annotation_reply>,
                [self](const std::vector<agent::role_answer<agent::annotation_reply>>& answers) {
                  self->state.engine->on_annotations(answers);
                  step(self);
                });
          },
          [&](const agent::need_gate& g) {
            // A veto costs no evaluation: the engine records it, the state is persisted, and the
            // next candidate is asked for. An accepted candidate goes on to the device unsaved
            // when no gate changed the state: its evaluation's transition saves it.
            const bool heeds_opinions = g.request.heeds_opinions;
            ask_in_turn<gate_atom>(
                self, g.roles, 0, g.request, std::vector<agent::role_answer<agent::gate_verdict>>{},
                [heeds_opinions](const agent::gate_verdict& v) {
                  return v.veto && (v.certain || heeds_opinions);
                },
                relay_nothing<agent::gate_request, agent::gate_verdict>,
                [self](const std::vector<agent::role_answer<agent::gate_verdict>>& verdicts) {
                  if (!self->state.engine->on_gate(verdicts) ||
                      persist(self, std::nullopt, std::nullopt))
                    step(self);
                });
          },
          [&](const agent::need_evaluation& ev) { evaluate(self, ev.request); },
          [&](const agent::need_verification& v) {
            verify(
                self, v,
                [self](const std::vector<agent::role_answer<agent::verification_reply>>& answers) {
                  if (!persist_verifier_entries(self, answers)) return;
                  self->state.engine->on_final_verification(answers);
                  if (persist(self, std::nullopt, std::nullopt)) step(self);
                });
          },
          [&](const agent::episode_finished&) {
            // An episode can end without an evaluation (a stage with nothing left to propose):
            // its final state is stored here, or a reader would see it running forever.
            if (persist(self, std::nullopt, std::nullopt)) finish(self, "");
          },
      },
      action);
}

}  // namespace

episode_actor spawn_episode(caf::actor_system& sys, episode_context context) {
  return sys.spawn<caf::detached>(
      [](episode_self self, episode_context ctx) -> episode_actor::behavior_type {
        self->state.ctx = std::move(ctx);
        self->state.engine =
            std::make_unique<agent::episode_engine>(*self->state.ctx.op, self->state.ctx.state);
        // Whatever escapes a handler ends this episode with the reason, not the campaign: the
        // campaign is answered and goes on with its other operators.
        self->set_exception_handler([self](std::exception_ptr& e) -> caf::error {
          const std::string why = "episode actor: " + exception_text(e);
          if (self->state.done.pending()) {
            local<agent::episode_state> state;
            try {
              state = make_local(self->state.engine->state());
            } catch (...) {
              // The summary goes without the state; the journal holds its last persisted form.
            }
            self->state.done.deliver(
                episode_summary{self->state.engine->state().op_name, std::move(state), why});
          }
          return to_actor_error(internal_error(why));
        });
        return {[=](run_atom) -> caf::result<episode_summary> {
          self->state.done = self->make_response_promise<episode_summary>();
          publish(self, make_event(self->state.engine->state(),
                                   agent::campaign_event::kind::episode_started));
          step(self);
          return self->state.done;
        }};
      },
      std::move(context));
}

}  // namespace aopt::actors

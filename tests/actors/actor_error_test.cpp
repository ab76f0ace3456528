// The one error of the actor boundary (actors/actor_error.hpp): a status that crosses a typed
// request comes back with its code and message, an exception escaping a role's policy comes
// back as an internal error naming it, and CAF's own errors come back as statuses too.
#include "actors/actor_error.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <stdexcept>

#include "actors/messages.hpp"
#include "actors/mutator.hpp"
#include "actors/shut_down.hpp"

using namespace aopt;

namespace {

// A mutator whose answers the test picks: a value, a failed status, or an exception.
class scripted_mutator final : public agent::mutator_policy {
 public:
  explicit scripted_mutator(int mode) : mode_(mode) {}
  std::string name() const override { return "scripted"; }
  result<agent::mutation_reply> mutate(const agent::mutation_request&) override {
    if (mode_ == 1) throw std::runtime_error("policy exploded");
    return not_found("no tiling left to try");
  }

 private:
  int mode_;
};

caf::actor_system_config& with_aopt(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::aopt>();
  actors::add_aopt_error_category(cfg);
  return cfg;
}

struct actor_system_fixture {
  caf::actor_system_config cfg;
  caf::actor_system sys{with_aopt(cfg)};
};

}  // namespace

TEST_CASE("a status crosses the actor boundary and comes back with its code and message") {
  const status original = resource_exhausted("LLM budget spent");
  const caf::error e = actors::to_actor_error(original);
  CHECK(e.category() == caf::atom("aopt"));
  const status back = actors::to_status(e);
  CHECK(back.code() == status_code::resource_exhausted);
  CHECK(back.message() == "LLM budget spent");
  CHECK(actors::to_status(caf::error{}).ok());

  // CAF's own errors: a receiver gone is worth retrying, anything else is internal.
  CHECK(actors::to_status(caf::make_error(caf::sec::request_receiver_down)).code() ==
        status_code::unavailable);
  CHECK(actors::to_status(caf::make_error(caf::sec::request_timeout)).code() ==
        status_code::deadline_exceeded);
  CHECK(actors::to_status(caf::make_error(caf::sec::unexpected_message)).code() ==
        status_code::internal);
  // A code beyond the enum (from a peer of another version) is not trusted as one.
  CHECK(actors::to_status(caf::error(200, caf::atom("aopt"))).code() == status_code::internal);

  actor_system_fixture f;
  CHECK(f.sys.render(e).find("resource_exhausted: LLM budget spent") != std::string::npos);
}

TEST_CASE("a role's failed status is its outcome, an exception in its policy an internal error") {
  actor_system_fixture f;
  caf::scoped_actor self{f.sys};
  agent::mutation_request request;

  actors::mutator_actor failing =
      actors::spawn_mutator(f.sys, std::make_shared<scripted_mutator>(0));
  std::optional<result<agent::mutation_reply>> outcome;
  self->request(failing, caf::infinite, actors::mutate_atom_v, actors::make_local(request))
      .receive([&](const actors::mutation_outcome& o) { outcome = *o.value; },
               [&](const caf::error& e) { FAIL("unexpected actor error: " << f.sys.render(e)); });
  REQUIRE(outcome.has_value());
  CHECK(outcome->error().code() == status_code::not_found);

  actors::mutator_actor throwing =
      actors::spawn_mutator(f.sys, std::make_shared<scripted_mutator>(1));
  std::optional<status> error;
  self->request(throwing, caf::infinite, actors::mutate_atom_v, actors::make_local(request))
      .receive([&](const actors::mutation_outcome&) { FAIL("an exception answered a value"); },
               [&](const caf::error& e) { error = actors::to_status(e); });
  REQUIRE(error.has_value());
  CHECK(error->code() == status_code::internal);
  CHECK(error->message() == "policy exploded");
  actors::shut_down(failing, throwing);
}

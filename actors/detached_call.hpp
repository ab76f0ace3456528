// Runs a blocking call (a policy, a device evaluation, an LLM request) on its own detached
// thread and answers the current request with its value, so that no scheduled actor blocks.
// An exception escaping the call answers the request with an error naming it: a thread that
// died without answering would leave its requester (an episode) waiting forever.
#pragma once

#include <caf/all.hpp>

#include "actors/exception_text.hpp"

namespace aopt::actors {

template <class Reply, class Self, class Call>
caf::result<Reply> answer_detached(Self* self, Call call) {
  auto promise = self->template make_response_promise<Reply>();
  self->template spawn<caf::detached>([promise, call]() mutable {
    try {
      promise.deliver(call());
    } catch (...) {
      promise.deliver(
          caf::make_error(caf::sec::runtime_error, exception_text(std::current_exception())));
    }
  });
  return promise;
}

}  // namespace aopt::actors

namespace aopt::actors {

// An actor answering (Atom, Job) with `call(job)`, each call on its own detached thread: the
// shape of every policy-backed role.
template <class Atom, class Job, class Outcome, class Call>
caf::actor spawn_policy_actor(caf::actor_system& sys, Call call) {
  return sys.spawn([call](caf::event_based_actor* self) -> caf::behavior {
    return {[=](Atom, const Job& job) {
      return answer_detached<Outcome>(self, [call, job] { return call(job); });
    }};
  });
}

}  // namespace aopt::actors

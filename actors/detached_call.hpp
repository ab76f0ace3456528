// Runs a blocking call (a policy, a device evaluation, an LLM request) on its own detached
// thread and answers the current request with its value, so that no scheduled actor blocks.
// An exception escaping the call answers the request with an internal error naming it
// (actors/actor_error.hpp): a thread that died without answering would leave its requester (an
// episode) waiting forever.
#pragma once

#include <caf/all.hpp>

#include "actors/actor_error.hpp"
#include "actors/exception_text.hpp"

namespace aopt::actors {

template <class Reply, class Self, class Call>
caf::result<Reply> answer_detached(Self* self, Call call) {
  auto promise = self->template make_response_promise<Reply>();
  self->template spawn<caf::detached>([promise, call]() mutable {
    try {
      promise.deliver(call());
    } catch (...) {
      promise.deliver(to_actor_error(internal_error(exception_text(std::current_exception()))));
    }
  });
  return promise;
}

// The role actor speaking `Handle`'s one request, (Atom, Job) -> call(job), each call on its own
// detached thread: the shape of every policy-backed role.
template <class Handle, class Atom, class Job, class Call>
Handle spawn_policy_actor(caf::actor_system& sys, Call call) {
  using outcome = decltype(call(std::declval<const Job&>()));
  return sys.spawn([call](typename Handle::pointer self) -> typename Handle::behavior_type {
    return {[=](Atom, const Job& job) -> caf::result<outcome> {
      return answer_detached<outcome>(self, [call, job] { return call(job); });
    }};
  });
}

}  // namespace aopt::actors

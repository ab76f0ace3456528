#include "server/sse_stream.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

namespace aopt::server {
namespace net = boost::asio;

namespace {

constexpr auto heartbeat_period = std::chrono::seconds(15);

std::string frame(const hub_event& e) {
  return "id: " + std::to_string(e.id) + "\nevent: " + e.type + "\ndata: " + e.json + "\n\n";
}

}  // namespace

sse_stream::sse_stream(boost::beast::tcp_stream stream, std::string header, std::string campaign,
                       connection_limit::slot slot)
    : stream_(std::move(stream)),
      slot_(std::move(slot)),
      campaign_(std::move(campaign)),
      heartbeat_(stream_.get_executor()) {
  queue_.push_back(std::move(header));
}

void sse_stream::start(event_hub& hub, uint64_t since) {
  // The stream lives as long as a socket operation or timer holds it; no deadline applies.
  stream_.expires_never();
  auto self = shared_from_this();
  std::vector<std::shared_ptr<const hub_event>> backlog = hub.subscribe(self, since);
  net::dispatch(stream_.get_executor(), [self, backlog = std::move(backlog)] {
    for (const auto& e : backlog) self->enqueue(e);
    self->write_next();
    self->heartbeat();
    self->watch_peer();
  });
}

void sse_stream::deliver(std::shared_ptr<const hub_event> event) {
  if (!campaign_.empty() && event->campaign != campaign_) return;
  net::post(stream_.get_executor(), [self = shared_from_this(), event] {
    self->enqueue(event);
    self->write_next();
  });
}

void sse_stream::close() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    self->closing_ = true;
    self->write_next();
  });
}

void sse_stream::enqueue(const std::shared_ptr<const hub_event>& event) {
  if (closed_ || (!campaign_.empty() && event->campaign != campaign_)) return;
  if (queue_.size() >= max_queued) {
    shut();
    return;
  }
  queue_.push_back(frame(*event));
}

void sse_stream::write_next() {
  if (closed_ || writing_) return;
  if (queue_.empty()) {
    if (closing_) shut();
    return;
  }
  writing_ = true;
  net::async_write(stream_.socket(), net::buffer(queue_.front()),
                   [self = shared_from_this()](boost::system::error_code ec, size_t) {
                     self->writing_ = false;
                     if (ec) {
                       self->shut();
                       return;
                     }
                     self->queue_.pop_front();
                     self->write_next();
                   });
}

void sse_stream::heartbeat() {
  heartbeat_.expires_after(heartbeat_period);
  heartbeat_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (ec || self->closed_) return;
    if (self->queue_.empty()) self->queue_.push_back(": keep-alive\n\n");
    self->write_next();
    self->heartbeat();
  });
}

void sse_stream::watch_peer() {
  // A client sends nothing after its request; a completed read means it closed (or misbehaves).
  stream_.socket().async_read_some(
      net::buffer(&peer_byte_, 1),
      [self = shared_from_this()](boost::system::error_code ec, size_t) {
        if (ec) {
          self->shut();
          return;
        }
        self->watch_peer();
      });
}

void sse_stream::shut() {
  if (closed_) return;
  closed_ = true;
  // The queue stays: a write in flight still reads its front element until it completes.
  heartbeat_.cancel();
  boost::system::error_code ec;
  stream_.socket().shutdown(net::ip::tcp::socket::shutdown_both, ec);
  stream_.socket().close(ec);
}

}  // namespace aopt::server

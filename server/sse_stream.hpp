// One server-sent-event client: after the router accepted GET /api/v1/events, the session hands
// its socket to an sse_stream, which writes the stream header, the retained backlog and then
// every new event of the hub (filtered by campaign), one write at a time on the socket's
// strand. A comment line every 15 s keeps proxies from closing an idle stream and finds clients
// that went away. A client that falls more than max_queued events behind is dropped rather
// than letting its queue grow without bound; it reconnects with Last-Event-ID.
//
// Thread-safety: deliver() and close() may be called from any thread (the hub's publishers);
// they only post to the strand.
#pragma once

#include <deque>
#include <memory>
#include <string>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>

#include "server/connection_limit.hpp"
#include "server/event_hub.hpp"

namespace aopt::server {

class sse_stream final : public event_subscriber, public std::enable_shared_from_this<sse_stream> {
 public:
  static constexpr size_t max_queued = 4096;

  // `header`: the HTTP response header block to send first. `campaign`: "" = every campaign.
  // `slot`: the connection's place under server.max_connections, held while the stream lives.
  sse_stream(boost::beast::tcp_stream stream, std::string header, std::string campaign,
             connection_limit::slot slot = {});

  // Subscribes to `hub` (must outlive the stream's registration; the hub holds it weakly) and
  // starts writing.
  void start(event_hub& hub, uint64_t since);

  void deliver(std::shared_ptr<const hub_event> event) override;
  void close() override;

 private:
  void enqueue(const std::shared_ptr<const hub_event>& event);
  void write_next();
  void heartbeat();
  void watch_peer();
  void shut();

  boost::beast::tcp_stream stream_;
  connection_limit::slot slot_;
  std::string campaign_;
  boost::asio::steady_timer heartbeat_;
  // State below is touched only on the stream's strand.
  std::deque<std::string> queue_;
  bool writing_ = false;
  bool closing_ = false;  // flush what is queued, then shut down
  bool closed_ = false;
  char peer_byte_ = 0;
};

}  // namespace aopt::server

// jupyter_wire.h — Jupyter messages on the wire (messaging protocol 5.3): the
// frames of a ZeroMQ multipart message, their HMAC-SHA256 signature, and the
// connection file that names the ports and the key (docs/notebook.md).
//
// Invariant: a message reaches a handler only when it is well formed (the
// `<IDS|MSG>` delimiter, four JSON objects, a header with a msg_type) and, when
// the connection has a key, its signature is the HMAC-SHA256 of the four JSON
// frames under that key and was not seen before. Everything else is refused with
// a reason, which the kernel logs; it is never executed.
#pragma once
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>
#include <vector>

namespace kiln::jupyter {

using json = nlohmann::json;

struct ConnectionInfo {
  std::string transport = "tcp";
  std::string ip = "127.0.0.1";
  int shell_port = 0, iopub_port = 0, stdin_port = 0, control_port = 0, hb_port = 0;
  std::string key;  // empty: messages are not signed
  std::string kernel_name;
  std::string endpoint(int port) const;  // "tcp://IP:PORT" or "ipc://IP-PORT"
};

// Reads a connection file; false with *error ("FILE: what is wrong") when it
// cannot be read, is not JSON, lacks a port, or asks for a signature scheme
// other than hmac-sha256.
bool read_connection_file(const std::string &path, ConnectionInfo *info, std::string *error);

struct Message {
  std::vector<std::string> identities;  // routing frames before the delimiter
  json header, parent_header, metadata, content;
  std::vector<std::string> buffers;  // extra frames after content
  std::string type() const { return header.value("msg_type", ""); }
};

class Signer {
 public:
  explicit Signer(std::string key) : key_(std::move(key)) {}
  bool enabled() const { return !key_.empty(); }
  // Lower-case hex HMAC-SHA256 of the four frames, or "" without a key.
  std::string sign(const std::string &header, const std::string &parent, const std::string &metadata,
                   const std::string &content) const;
  // Parses and checks frames; false with *reason when the message is refused.
  // Safe to call from several threads (the shell and control channels).
  bool parse(const std::vector<std::string> &frames, Message *msg, std::string *reason);
  // The frames of msg, signed.
  std::vector<std::string> serialize(const Message &msg) const;

 private:
  std::string key_;
  // Signatures already accepted: a captured message replayed is refused. Cleared
  // when it grows past kMaxRemembered (the protocol asks only for a best effort).
  std::unordered_set<std::string> seen_;
  std::mutex seen_mutex_;
  static constexpr size_t kMaxRemembered = 1 << 16;
};

// The header of a new message of `type` in `session` (msg_id a fresh UUID, the
// date now in ISO 8601, protocol version 5.3).
json new_header(const std::string &type, const std::string &session);
std::string new_uuid();
// JSON text of v; invalid UTF-8 in strings becomes U+FFFD rather than an error.
std::string dump_json(const json &v);

}  // namespace kiln::jupyter

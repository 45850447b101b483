#include "repl/jupyter_wire.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>

#include "fmt/format.h"

namespace kiln::jupyter {

static const char *const kDelimiter = "<IDS|MSG>";

std::string ConnectionInfo::endpoint(int port) const {
  if (transport == "ipc") return fmt::format("ipc://{}-{}", ip, port);
  return fmt::format("{}://{}:{}", transport, ip, port);
}

bool read_connection_file(const std::string &path, ConnectionInfo *info, std::string *error) {
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot open the connection file";
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    *error = path + ": the connection file is not a JSON object";
    return false;
  }
  auto port = [&](const char *name, int *out) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > 65535) {
      *error = fmt::format("{}: the connection file needs {} (a port number)", path, name);
      return false;
    }
    *out = it->get<int>();
    return true;
  };
  if (!port("shell_port", &info->shell_port) || !port("iopub_port", &info->iopub_port) ||
      !port("stdin_port", &info->stdin_port) || !port("control_port", &info->control_port) ||
      !port("hb_port", &info->hb_port))
    return false;
  auto text_field = [&](const char *name, std::string *out) {
    auto it = j.find(name);
    if (it == j.end()) return true;
    if (!it->is_string()) {
      *error = fmt::format("{}: {} must be a string in the connection file", path, name);
      return false;
    }
    *out = it->get<std::string>();
    return true;
  };
  std::string scheme = "hmac-sha256";
  if (!text_field("transport", &info->transport) || !text_field("ip", &info->ip) ||
      !text_field("key", &info->key) || !text_field("signature_scheme", &scheme) ||
      !text_field("kernel_name", &info->kernel_name))
    return false;
  if (info->transport != "tcp" && info->transport != "ipc") {
    *error = fmt::format("{}: transport must be tcp or ipc, got {}", path, info->transport);
    return false;
  }
  if (!info->key.empty() && scheme != "hmac-sha256") {
    *error = fmt::format("{}: signature_scheme must be hmac-sha256, got {}", path, scheme);
    return false;
  }
  return true;
}

std::string dump_json(const json &v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string Signer::sign(const std::string &header, const std::string &parent, const std::string &metadata,
                         const std::string &content) const {
  if (key_.empty()) return "";
  std::string data = header + parent + metadata + content;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), key_.data(), int(key_.size()), reinterpret_cast<const unsigned char *>(data.data()),
       data.size(), mac, &n);
  std::string hex;
  for (unsigned int i = 0; i < n; i++) hex += fmt::format("{:02x}", mac[i]);
  return hex;
}

bool Signer::parse(const std::vector<std::string> &frames, Message *msg, std::string *reason) {
  size_t d = 0;
  while (d < frames.size() && frames[d] != kDelimiter) d++;
  if (d == frames.size()) {
    *reason = "no <IDS|MSG> delimiter";
    return false;
  }
  if (frames.size() - d < 6) {
    *reason = fmt::format("{} frames after the delimiter, need 5", frames.size() - d - 1);
    return false;
  }
  const std::string &signature = frames[d + 1];
  if (enabled()) {
    std::string expected = sign(frames[d + 2], frames[d + 3], frames[d + 4], frames[d + 5]);
    if (signature.empty()) {
      *reason = "unsigned message";
      return false;
    }
    // Constant time, so the comparison does not tell how much of a forgery was right.
    if (signature.size() != expected.size() ||
        CRYPTO_memcmp(signature.data(), expected.data(), expected.size()) != 0) {
      *reason = "bad signature";
      return false;
    }
    std::lock_guard<std::mutex> lock(seen_mutex_);
    if (seen_.size() >= kMaxRemembered) seen_.clear();
    if (!seen_.insert(signature).second) {
      *reason = "replayed message (its signature was seen before)";
      return false;
    }
  }
  json parts[4];
  static const char *const kNames[4] = {"header", "parent header", "metadata", "content"};
  for (int i = 0; i < 4; i++) {
    parts[i] = json::parse(frames[d + 2 + size_t(i)], nullptr, false);
    if (parts[i].is_discarded() || !parts[i].is_object()) {
      *reason = fmt::format("the {} is not a JSON object", kNames[i]);
      return false;
    }
  }
  auto type = parts[0].find("msg_type");
  if (type == parts[0].end() || !type->is_string()) {
    *reason = "the header has no msg_type";
    return false;
  }
  msg->identities.assign(frames.begin(), frames.begin() + long(d));
  msg->header = std::move(parts[0]);
  msg->parent_header = std::move(parts[1]);
  msg->metadata = std::move(parts[2]);
  msg->content = std::move(parts[3]);
  msg->buffers.assign(frames.begin() + long(d) + 6, frames.end());
  return true;
}

std::vector<std::string> Signer::serialize(const Message &msg) const {
  std::vector<std::string> frames = msg.identities;
  std::string header = dump_json(msg.header), parent = dump_json(msg.parent_header),
              metadata = dump_json(msg.metadata), content = dump_json(msg.content);
  frames.push_back(kDelimiter);
  frames.push_back(sign(header, parent, metadata, content));
  frames.push_back(std::move(header));
  frames.push_back(std::move(parent));
  frames.push_back(std::move(metadata));
  frames.push_back(std::move(content));
  for (const std::string &b : msg.buffers) frames.push_back(b);
  return frames;
}

std::string new_uuid() {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof b) != 1) {
    // Uniqueness, not secrecy, is what a message id needs.
    static uint64_t counter = 0;
    uint64_t t = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^ ++counter;
    for (int i = 0; i < 16; i++) b[i] = (unsigned char)(t >> ((i % 8) * 8)) ^ (unsigned char)(i * 37);
  }
  b[6] = (b[6] & 0x0f) | 0x40;  // version 4
  b[8] = (b[8] & 0x3f) | 0x80;  // RFC 4122 variant
  std::string s;
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", b[i]);
  }
  return s;
}

static std::string now_iso8601() {
  auto now = std::chrono::system_clock::now();
  std::time_t secs = std::chrono::system_clock::to_time_t(now);
  auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm utc{};
  gmtime_r(&secs, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
  return fmt::format("{}.{:06d}Z", buf, micros);
}

json new_header(const std::string &type, const std::string &session) {
  return json{{"msg_id", new_uuid()},  {"session", session}, {"username", "kiln"},
              {"date", now_iso8601()}, {"msg_type", type},   {"version", "5.3"}};
}

}  // namespace kiln::jupyter

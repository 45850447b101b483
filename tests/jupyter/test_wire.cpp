// test_wire.cpp — repl/jupyter_wire.h without a kernel or a socket: the HMAC-SHA256
// signature against RFC 4231's vector, and every reason a message is refused
// (no delimiter, too few frames, no or a bad signature, a replay, JSON that is not
// an object, a header without msg_type), and what an empty key allows.
// Built as kiln_jupyter_wire_tests where the kernel is (ctest jupyter_wire).
#include <catch2/catch.hpp>

#include "repl/jupyter_wire.h"
#include "tests/support/catch_runner.h"

using namespace kiln::jupyter;

namespace {

std::vector<std::string> frames_of(const Signer &s, const json &content,
                                   const std::string &type = "execute_request") {
  Message m;
  m.identities = {"client-id"};
  m.header = new_header(type, "session");
  m.parent_header = json::object();
  m.metadata = json::object();
  m.content = content;
  return s.serialize(m);
}

std::string refusal(Signer &s, const std::vector<std::string> &frames) {
  Message m;
  std::string reason;
  return s.parse(frames, &m, &reason) ? "accepted" : reason;
}

}  // namespace

TEST_CASE("signatures are RFC 4231's HMAC-SHA256 over the four frames", "[jupyter_wire]") {
  Signer s("Jefe");
  // RFC 4231 test case 2: the key "Jefe", the data split across the frames.
  CHECK(s.sign("what do ya", " want for ", "nothing?", "") ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  CHECK(Signer("").sign("a", "b", "c", "d") == "");
}

TEST_CASE("a signed message round-trips through its frames", "[jupyter_wire]") {
  Signer out("secret"), in("secret");
  std::vector<std::string> f = frames_of(out, {{"code", "(+ 1 2)"}});
  REQUIRE(f.size() == 7);
  CHECK(f[0] == "client-id");
  CHECK(f[1] == "<IDS|MSG>");
  Message m;
  std::string reason;
  REQUIRE(in.parse(f, &m, &reason));
  CHECK(m.identities == std::vector<std::string>{"client-id"});
  CHECK(m.type() == "execute_request");
  CHECK(m.header["version"] == "5.3");
  CHECK(m.content["code"] == "(+ 1 2)");
}

TEST_CASE("messages are refused for every defect", "[jupyter_wire]") {
  Signer out("secret");
  std::vector<std::string> good = frames_of(out, {{"code", "1"}});

  Signer in("secret");
  auto tampered = good;
  tampered[6] = "{\"code\": \"(delete-everything)\"}";
  CHECK(refusal(in, tampered) == "bad signature");
  auto unsigned_ = good;
  unsigned_[2] = "";
  CHECK(refusal(in, unsigned_) == "unsigned message");
  auto wrong_length = good;
  wrong_length[2] = good[2].substr(1);
  CHECK(refusal(in, wrong_length) == "bad signature");
  Signer other("other key");
  CHECK(refusal(other, good) == "bad signature");

  CHECK(refusal(in, {"a", "b", "c"}) == "no <IDS|MSG> delimiter");
  CHECK(refusal(in, {"<IDS|MSG>", "sig", "{}"}) == "2 frames after the delimiter, need 5");

  CHECK(refusal(in, good) == "accepted");
  CHECK(refusal(in, good) == "replayed message (its signature was seen before)");

  Signer open("");  // signing off: anything well formed passes, replays included
  std::vector<std::string> plain = frames_of(Signer(""), {{"code", "1"}});
  CHECK(refusal(open, plain) == "accepted");
  CHECK(refusal(open, plain) == "accepted");
  auto not_object = plain;
  not_object[6] = "[1, 2]";
  CHECK(refusal(open, not_object) == "the content is not a JSON object");
  auto not_json = plain;
  not_json[3] = "{not json";
  CHECK(refusal(open, not_json) == "the header is not a JSON object");
  auto no_type = plain;
  no_type[3] = R"({"msg_id": "x"})";
  CHECK(refusal(open, no_type) == "the header has no msg_type");
}

TEST_CASE("invalid UTF-8 in a string is replaced, not an error", "[jupyter_wire]") {
  CHECK(dump_json(json{{"text", std::string("a\xff"
                                            "b")}}) ==
        "{\"text\":\"a\xef\xbf\xbd"
        "b\"}");
  CHECK(new_uuid().size() == 36);
  CHECK(new_uuid() != new_uuid());
}

int main(int argc, char **argv) { return run_catch_session(argc, argv); }

#include "repl/jupyter_kernel.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "repl/commands.h"
#include "repl/interrupt.h"
#include "repl/jupyter_output.h"
#include "repl/jupyter_requests.h"
#include "repl/jupyter_wire.h"
#include "repl/repl_eval.h"
#include "repl/session.h"
#include "repl/tensor_echo.h"
#include "runtime/big_stack.h"
#include "runtime/eval.h"
#include "runtime/gc.h"
#include "runtime/port.h"
#include "runtime/srcloc.h"
#include "runtime/tensor.h"
#include "stdlib/boot.h"
#include "stdlib/rich_display.h"

namespace kiln {

namespace jupyter {

namespace {

// How long a waiting thread sleeps before it looks at the stop flags again.
constexpr long kPollMs = 100;

bool wait_readable(zmq::socket_t &s, long ms) {
  zmq_pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
  return zmq_poll(&item, 1, ms) > 0 && (item.revents & ZMQ_POLLIN);  // EINTR: not ready
}

std::vector<std::string> recv_frames(zmq::socket_t &s) {
  std::vector<zmq::message_t> parts;
  try {
    if (!zmq::recv_multipart(s, std::back_inserter(parts), zmq::recv_flags::dontwait)) return {};
  } catch (const zmq::error_t &) {
    return {};
  }
  std::vector<std::string> frames;
  for (zmq::message_t &m : parts) frames.push_back(m.to_string());
  return frames;
}

bool send_frames(zmq::socket_t &s, const std::vector<std::string> &frames) {
  try {
    for (size_t i = 0; i < frames.size(); i++) {
      auto flags = i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none;
      if (!s.send(zmq::buffer(frames[i]), flags)) return false;
    }
    return true;
  } catch (const zmq::error_t &) {
    return false;
  }
}

void block_sigint_here() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

std::string text_of(const json &content, const char *name) {
  auto it = content.find(name);
  return it != content.end() && it->is_string() ? it->get<std::string>() : "";
}

bool flag_of(const json &content, const char *name, bool fallback) {
  auto it = content.find(name);
  return it != content.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

struct CellError {
  bool raised = false;
  std::string ename, evalue;
  json traceback = json::array();
};

class Kernel;
Kernel *g_kernel = nullptr;  // for the stdin reader, a plain function
int read_input_byte();

class Kernel final : public ReplOutput, public RichDisplay {
 public:
  Kernel(const ConnectionInfo &info)
      : info_(info),
        signer_(info.key),
        shell_(ctx_, zmq::socket_type::router),
        control_(ctx_, zmq::socket_type::router),
        stdin_(ctx_, zmq::socket_type::router),
        iopub_(ctx_, zmq::socket_type::pub),
        heartbeat_(ctx_, zmq::socket_type::rep),
        session_id_(new_uuid()) {}

  // Binds every channel; false with *error naming the endpoint that failed.
  bool bind(std::string *error) {
    struct Channel {
      zmq::socket_t *socket;
      int port;
    } channels[] = {{&shell_, info_.shell_port},
                    {&control_, info_.control_port},
                    {&stdin_, info_.stdin_port},
                    {&iopub_, info_.iopub_port},
                    {&heartbeat_, info_.hb_port}};
    for (Channel &c : channels) {
      std::string endpoint = info_.endpoint(c.port);
      try {
        c.socket->set(zmq::sockopt::linger, 1000);  // the last reply still goes out at exit
        c.socket->bind(endpoint);
      } catch (const zmq::error_t &e) {
        *error = "cannot listen on " + endpoint + ": " + e.what();
        return false;
      }
    }
    return true;
  }

  int run() {
    std::string error;
    if (!capture_.start([this](const char *name, const std::string &text) { stream(name, text); }, &error)) {
      log("kiln jupyter kernel: " + error);
      return 1;
    }
    g_kernel = this;
    install_repl_interrupt_handler();
    set_stdin_reader(read_input_byte);
    set_rich_display(this);
    session_.output = this;
    session_.source_prefix = "cell";
    // The helper threads never take Ctrl-C: it is the evaluating thread's.
    heartbeat_thread_ = std::thread([this] { heartbeat_loop(); });
    control_thread_ = std::thread([this] { control_loop(); });
    publish("status", {{"execution_state", "starting"}}, json::object());
    while (!shutdown_ && !session_.finished) {
      if (!wait_readable(shell_, kPollMs)) continue;
      Message msg;
      if (receive(shell_, "shell", &msg)) dispatch(msg);
    }
    set_rich_display(nullptr);
    set_stdin_reader(nullptr);
    stopping_ = true;
    heartbeat_thread_.join();
    control_thread_.join();
    capture_.stop();
    g_kernel = nullptr;
    return session_.finished ? session_.exit_code : 0;
  }

  // ---- ReplOutput: what a cell's evaluation produced ----------------------

  void value(Value v) override { last_value_ = v; }

  void error(const std::string &line, const ReplError *e) override {
    cell_error_.raised = true;
    cell_error_.ename = "error";
    cell_error_.evalue = line;
    json tb = json::array({line});
    if (e) {
      std::string lines = backtrace_lines(*e);
      for (size_t at = 0, end; at < lines.size(); at = end + 1) {
        end = lines.find('\n', at);
        if (end == std::string::npos) end = lines.size();
        tb.push_back(lines.substr(at, end - at));
      }
    }
    cell_error_.traceback = tb;
  }

  void interrupted() override {
    cell_error_.raised = true;
    cell_error_.ename = "interrupted";
    cell_error_.evalue = "interrupted";
    cell_error_.traceback = json::array({"interrupted"});
  }

  // ---- RichDisplay: pictures, HTML and the progress line ------------------

  void show(const MimeBundle &bundle) override {
    json data = json::object();
    for (const auto &[mime, text] : bundle) data[mime] = mime == "image/svg+xml" ? svg_for_html(text) : text;
    capture_.drain();
    publish("display_data", {{"data", data}, {"metadata", json::object()}, {"transient", json::object()}},
            parent_header());
  }

  void progress(const std::string &line, bool first) override {
    if (first) progress_id_ = new_uuid();
    capture_.drain();
    publish(first ? "display_data" : "update_display_data",
            {{"data", {{"text/plain", line}}},
             {"metadata", json::object()},
             {"transient", {{"display_id", progress_id_}}}},
            parent_header());
  }

  // ---- stdin ---------------------------------------------------------------

  // One byte of the program's standard input: a line asked of the notebook
  // (input_request) when none is left; -1 (end of file) when the request did
  // not allow stdin.
  int input_byte() {
    if (input_pos_ >= input_.size()) {
      if (!request_input()) return -1;
    }
    return (unsigned char)input_[input_pos_++];
  }

 private:
  void log(const std::string &line) {
    std::string text = line + "\n";
    int fd = capture_.log_fd() >= 0 ? capture_.log_fd() : 2;
    ssize_t ignored = write(fd, text.data(), text.size());
    (void)ignored;
  }

  bool receive(zmq::socket_t &s, const char *channel, Message *msg) {
    std::vector<std::string> frames = recv_frames(s);
    if (frames.empty()) return false;
    std::string reason;
    if (!signer_.parse(frames, msg, &reason)) {
      log(std::string("kiln jupyter kernel: refused a message on ") + channel + ": " + reason);
      return false;
    }
    return true;
  }

  json parent_header() {
    std::lock_guard<std::mutex> lock(parent_mutex_);
    return parent_;
  }

  void set_parent(const json &header) {
    std::lock_guard<std::mutex> lock(parent_mutex_);
    parent_ = header;
  }

  void publish(const std::string &type, const json &content, const json &parent) {
    Message m;
    m.identities = {"kernel." + session_id_ + "." + type};
    m.header = new_header(type, session_id_);
    m.parent_header = parent;
    m.metadata = json::object();
    m.content = content;
    std::vector<std::string> frames = signer_.serialize(m);
    std::lock_guard<std::mutex> lock(iopub_mutex_);
    send_frames(iopub_, frames);
  }

  void stream(const char *name, const std::string &text) {
    publish("stream", {{"name", name}, {"text", text}}, parent_header());
  }

  // Replies on the socket the request came from (the caller's thread owns it).
  void reply(zmq::socket_t &s, const Message &request, const std::string &type, const json &content) {
    Message m;
    m.identities = request.identities;
    m.header = new_header(type, session_id_);
    m.parent_header = request.header;
    m.metadata = json::object();
    m.content = content;
    send_frames(s, signer_.serialize(m));
  }

  void busy(const Message &request) { publish("status", {{"execution_state", "busy"}}, request.header); }
  void idle(const Message &request) { publish("status", {{"execution_state", "idle"}}, request.header); }

  // ---- the shell channel (this thread) -------------------------------------

  void dispatch(const Message &msg) {
    std::string type = msg.type();
    set_parent(msg.header);
    busy(msg);
    try {
      if (type == "execute_request") execute(msg);
      else if (type == "kernel_info_request") reply(shell_, msg, "kernel_info_reply", kernel_info_content());
      else if (type == "is_complete_request")
        reply(shell_, msg, "is_complete_reply", is_complete_content(msg.content));
      else if (type == "complete_request")
        reply(shell_, msg, "complete_reply", complete_content(msg.content));
      else if (type == "inspect_request") reply(shell_, msg, "inspect_reply", inspect_content(msg.content));
      else if (type == "history_request")
        reply(shell_, msg, "history_reply", {{"status", "ok"}, {"history", json::array()}});
      else if (type == "comm_info_request")
        reply(shell_, msg, "comm_info_reply", {{"status", "ok"}, {"comms", json::object()}});
      else if (type == "shutdown_request") shutdown(shell_, msg);
      else log("kiln jupyter kernel: ignored a " + type + " on shell (not supported)");
    } catch (const std::exception &e) {  // a reply that could not be built: the kernel goes on
      log("kiln jupyter kernel: " + type + " failed: " + e.what());
    }
    idle(msg);
  }

  void execute(const Message &msg) {
    const json &c = msg.content;
    std::string code = text_of(c, "code");
    bool silent = flag_of(c, "silent", false);
    bool store_history = flag_of(c, "store_history", !silent);
    if (!silent && store_history) {
      execution_count_++;
      session_.entries = int(execution_count_ - 1);  // so the cell In [N] is <cell-N> in messages
    }
    if (!silent)
      publish("execute_input", {{"code", code}, {"execution_count", execution_count_}}, msg.header);
    last_value_ = UNSPEC;
    cell_error_ = CellError{};
    request_ = &msg;
    allow_stdin_ = flag_of(c, "allow_stdin", true);
    input_.clear();
    input_pos_ = 0;
    if (is_repl_command(code)) run_repl_command(session_, code);
    else eval_entry(session_, code);
    json user_expressions = evaluate_user_expressions(c);
    request_ = nullptr;
    capture_.drain();
    if (cell_error_.raised) {
      json error = {
          {"ename", cell_error_.ename}, {"evalue", cell_error_.evalue}, {"traceback", cell_error_.traceback}};
      if (!silent) publish("error", error, msg.header);
      error["status"] = "error";
      error["execution_count"] = execution_count_;
      error["user_expressions"] = user_expressions;
      reply(shell_, msg, "execute_reply", error);
      if (flag_of(c, "stop_on_error", true)) abort_queued();
      return;
    }
    if (!silent && last_value_ != UNSPEC) {
      publish("execute_result",
              {{"execution_count", execution_count_},
               {"data", rich_value(last_value_)},
               {"metadata", json::object()}},
              msg.header);
    }
    last_value_ = UNSPEC;
    reply(shell_, msg, "execute_reply",
          {{"status", "ok"},
           {"execution_count", execution_count_},
           {"user_expressions", user_expressions},
           {"payload", json::array()}});
  }

  // The echo of a value, and for a tensor its HTML table too.
  static json rich_value(Value v) {
    json data = {{"text/plain", echo_string(v)}};
    if (is_tensor(v)) data["text/html"] = tensor_html_table(v);
    return data;
  }

  // Each user expression's value (in the same session, after the cell).
  json evaluate_user_expressions(const json &c) {
    json out = json::object();
    auto it = c.find("user_expressions");
    if (it == c.end() || !it->is_object()) return out;
    CellError saved = cell_error_;
    Value saved_value = last_value_;
    for (auto &[name, expr] : it->items()) {
      if (!expr.is_string()) continue;
      cell_error_ = CellError{};
      last_value_ = UNSPEC;
      eval_entry(session_, expr.get<std::string>());
      if (cell_error_.raised) {
        out[name] = {{"status", "error"},
                     {"ename", cell_error_.ename},
                     {"evalue", cell_error_.evalue},
                     {"traceback", cell_error_.traceback}};
      } else {
        out[name] = {{"status", "ok"}, {"data", rich_value(last_value_)}, {"metadata", json::object()}};
      }
    }
    cell_error_ = saved;
    last_value_ = saved_value;
    return out;
  }

  // After a failed cell, the execute requests already waiting are not run (they
  // were written expecting this one to succeed): each is answered "aborted".
  void abort_queued() {
    while (wait_readable(shell_, 0)) {
      Message msg;
      if (!receive(shell_, "shell", &msg)) continue;
      if (msg.type() != "execute_request") {
        dispatch(msg);
        continue;
      }
      set_parent(msg.header);
      busy(msg);
      reply(shell_, msg, "execute_reply", {{"status", "aborted"}, {"execution_count", execution_count_}});
      idle(msg);
    }
  }

  bool request_input() {
    capture_.drain();  // the prompt the program printed comes first
    if (!request_ || !allow_stdin_) return false;
    Message m;
    m.identities = request_->identities;
    m.header = new_header("input_request", session_id_);
    m.parent_header = request_->header;
    m.metadata = json::object();
    m.content = {{"prompt", ""}, {"password", false}};
    send_frames(stdin_, signer_.serialize(m));
    for (;;) {
      check_interrupt();  // Ctrl-C while the notebook waits for the person
      if (shutdown_) throw_interrupt();
      if (!wait_readable(stdin_, kPollMs)) continue;
      Message answer;
      if (!receive(stdin_, "stdin", &answer)) continue;
      if (answer.type() != "input_reply") {
        log("kiln jupyter kernel: ignored a " + answer.type() + " on stdin");
        continue;
      }
      input_ = text_of(answer.content, "value") + "\n";
      input_pos_ = 0;
      return true;
    }
  }

  void shutdown(zmq::socket_t &s, const Message &msg) {
    bool restart = flag_of(msg.content, "restart", false);
    reply(s, msg, "shutdown_reply", {{"status", "ok"}, {"restart", restart}});
    shutdown_ = true;
  }

  // ---- the heartbeat and control threads -----------------------------------

  void heartbeat_loop() {
    block_sigint_here();
    while (!stopping_) {
      if (!wait_readable(heartbeat_, kPollMs)) continue;
      std::vector<std::string> ping = recv_frames(heartbeat_);
      if (!ping.empty()) send_frames(heartbeat_, ping);
    }
  }

  void control_loop() {
    block_sigint_here();
    while (!stopping_) {
      if (!wait_readable(control_, kPollMs)) continue;
      Message msg;
      if (!receive(control_, "control", &msg)) continue;
      std::string type = msg.type();
      busy(msg);
      if (type == "shutdown_request") {
        shutdown(control_, msg);
        kill(getpid(), SIGINT);  // a running cell stops; the shell loop then ends
      } else if (type == "interrupt_request") {
        kill(getpid(), SIGINT);  // what interrupt_mode "signal" does
        reply(control_, msg, "interrupt_reply", {{"status", "ok"}});
      } else if (type == "kernel_info_request") {
        reply(control_, msg, "kernel_info_reply", kernel_info_content());
      } else {
        log("kiln jupyter kernel: ignored a " + type + " on control (not supported)");
      }
      idle(msg);
    }
  }

  ConnectionInfo info_;
  Signer signer_;
  zmq::context_t ctx_;
  zmq::socket_t shell_, control_, stdin_, iopub_, heartbeat_;
  std::mutex iopub_mutex_;
  std::string session_id_;
  std::mutex parent_mutex_;
  json parent_ = json::object();  // of the request being handled: streams belong to it
  OutputCapture capture_;
  std::thread heartbeat_thread_, control_thread_;
  std::atomic<bool> stopping_{false}, shutdown_{false};

  ReplSession session_;
  int64_t execution_count_ = 0;
  // This object lives on the evaluating thread's stack, which the collector
  // scans: the last value stays alive until it is published.
  Value last_value_ = UNSPEC;
  CellError cell_error_;
  const Message *request_ = nullptr;  // the execute_request running
  bool allow_stdin_ = false;
  std::string input_;
  size_t input_pos_ = 0;
  std::string progress_id_;
};

int read_input_byte() { return g_kernel ? g_kernel->input_byte() : -1; }

struct KernelArgs {
  ConnectionInfo info;
};

int kernel_main(void *p) {
  KernelArgs &args = *static_cast<KernelArgs *>(p);
  int code = 0;
  if (run_guarded([] { init_kiln(); }, &code) != RunResult::ok) return code ? code : 1;
  Kernel kernel(args.info);
  std::string error;
  if (!kernel.bind(&error)) {
    std::fprintf(stderr, "kiln jupyter kernel: %s\n", error.c_str());
    return 1;
  }
  return kernel.run();
}

}  // namespace

}  // namespace jupyter

int run_jupyter_kernel(const std::string &connection_file) {
  jupyter::KernelArgs args;
  std::string error;
  if (!jupyter::read_connection_file(connection_file, &args.info, &error)) {
    std::fprintf(stderr, "kiln jupyter kernel: %s\n", error.c_str());
    return 2;
  }
  if (args.info.key.empty())
    std::fprintf(stderr,
                 "kiln jupyter kernel: warning: the connection file has no key; messages are not signed\n");
  gc_init();
  return run_on_big_stack(jupyter::kernel_main, &args);
}

}  // namespace kiln

// commands.h — the REPL's comma commands (docs/repl.md): ,help ,quit ,time EXPR
// ,load FILE ,describe NAME ,apropos TEXT ,bt ,expand FORM.
//
// Invariant: a command never ends the session except ,quit; its failures are
// reported through print_repl_error like any evaluation error. A command may be
// abbreviated to any prefix that names only one command (,d car).
#pragma once
#include <string>
#include <string_view>

#include "repl/repl_eval.h"

namespace kiln {

// Whether `entry` (a complete REPL entry) is a command: its first non-blank
// character is a comma followed by a letter.
bool is_repl_command(const std::string &entry);

void run_repl_command(ReplSession &s, const std::string &entry);

// What ,describe NAME prints (kind, arity, doc, where defined), for NAME (one
// symbol's text); false when NAME is not bound. The notebook's inspect uses it.
bool describe_name(std::string_view name, std::string *text);

}  // namespace kiln

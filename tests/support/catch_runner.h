// catch_runner.h — Catch2's session, compiled once (catch_runner.cpp) for both
// test binaries, whose own main() brings up what they test and then calls this.
#pragma once

int run_catch_session(int argc, char **argv);

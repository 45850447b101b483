#!/bin/sh
# Builds bench_graph.cpp against an existing build's objects and runs it.
# Usage: benchmarks/graph/run.sh [BUILD_DIR]   (default: build-graph, Release)
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-graph}
cmake --build "$BUILD" --target kiln_stdlib kiln_compiler kiln_runtime -j1 >/dev/null
OBJS="$(find "$BUILD/CMakeFiles/kiln_stdlib.dir" -name '*.o') $BUILD/libkiln_compiler.a $BUILD/libkiln_runtime.a"
GCCJIT=$(ls /usr/lib/gcc/x86_64-linux-gnu/*/libgccjit.so 2>/dev/null | head -1)
g++ -std=c++20 -O2 -ffp-contract=off -DGC_THREADS -I"$ROOT" "$ROOT/benchmarks/graph/bench_graph.cpp" $OBJS \
  $(pkg-config --libs bdw-gc) -lfmt -lpthread -lz ${GCCJIT:--lgccjit} -ldl -lm -o "$BUILD/bench_graph"
"$BUILD/bench_graph"

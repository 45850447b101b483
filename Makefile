# Thin wrapper around CMake/CTest. The real build is CMakeLists.txt.
#
#   make deps       install missing Debian packages (apt-get as root, or sudo -n;
#                   KILN_APT_UPDATED=1: the package lists are fresh, no apt-get update)
#   make build      Release build in build/
#   make bench      deps + build + the main benchmark
#   make test       deps + build + every ctest test (the timed ones beside two busy loops)
#   make asan       -O1 -g1 AddressSanitizer/UBSan unity build in build-asan/, then ctest there
#   make gc-stress  golden tests (all but GC_STRESS_SKIP) with KILN_GC_STRESS=1
#   make timing-under-load  only the timed tests, beside two busy loops (as make test runs them)
#   make install    cmake --install build (PREFIX=/usr/local by default)
#   make format     apply .clang-format to every C/C++ source (ctest `format` checks it)

JOBS ?= 2
PREFIX ?= /usr/local
BUILD_DIR ?= build
ASAN_DIR ?= build-asan
BENCH ?= benchmarks/tensor_bench.lisp
# Fewer fuzz cases under ASan, which is ~5x slower per run (tests/fuzz/, docs/testing.md).
ASAN_FUZZ_CASES ?= 200
ASAN_DIFF_FUZZ_COUNT ?= 60
# Golden tests the ASan build cannot run: ASan frames are several times larger
# and its stack is capped at 60 MiB (see runtime/eval.cpp), so 100 000 frames
# of non-tail recursion do not fit there. Release builds run them. deep_jump's
# recursions (30 000 frames) overflow there too, and overflow_backtrace names the
# frame the overflow lands in, which depends on the frames' sizes.
ASAN_GOLDEN_SKIP ?= tail/deep_recursion tail/million_deep tail/stack_overflow control/reenter_deep \
                    tail/deep_jump tail/overflow_backtrace
# Per-golden-test limit under ASan (kiln test's default is 60 s).
ASAN_TEST_TIMEOUT ?= 300
# gc-stress runs every golden test under KILN_GC_STRESS=$(GC_STRESS_EVERY) (a
# full collection every that many allocations) except GC_STRESS_SKIP: tests
# that build big heaps or run long loops, where a collection per allocation is
# quadratic (each one takes minutes). Add a test here only for that reason.
GC_STRESS_EVERY ?= 1
# Boot (the embedded Lisp libraries) is the same in every run and took ~2.7 CPU s
# of each test under a collection per allocation, ~80% of the whole run: it runs
# under stress once, with GC_STRESS_BOOT_TEST, and the suite with
# KILN_GC_STRESS_SKIP_BOOT=1 (collections from the test's first allocation on).
GC_STRESS_BOOT_TEST ?= control/generators
GC_STRESS_TIMEOUT ?= 120
GC_STRESS_SKIP ?= lists/basics lists/errors lists/higher_order lists/sort \
                  vectors/vectors hashtables/basic equality/equal syntax/lazy \
                  tail/case_arrow tail/apply_values tail/deep_recursion tail/million_deep tail/stack_overflow \
                  tensors/heap_flat tensors/summation_order printer/deep_nesting reader/deep_nesting \
                  errors/out_of_memory errors/huge_value errors/huge_value_message \
                  vmap/grad

# libgccjit's headers come with the matching gcc; tmux drives the REPL tests;
# python3 drives some test tools; zlib gives model files their CRC-32; GMP gives
# exact integers of any size and exact rationals; libunistring gives Unicode
# character classes and case mappings; ZeroMQ (with cppzmq's C++ header),
# nlohmann-json and OpenSSL's HMAC-SHA256 build the Jupyter kernel (`kiln jupyter`,
# docs/notebook.md); jupyter-client and nbclient drive it in the tests/jupyter tests
# (which skip without them), and nbconvert, chromium (headless) and PIL export the
# example notebook to HTML, photograph it and check the picture
# (tests/jupyter/test_notebook_screenshot.py, skipped without them); OpenMPI (libopenmpi-dev, and openmpi-bin's mpirun for the
# tests) runs Kiln as several processes (docs/distributed.md).
DEB_PACKAGES := libgc-dev libgccjit-12-dev libfmt-dev catch2 libreadline-dev zlib1g-dev libgmp-dev \
                libunistring-dev cmake g++ pkg-config make tmux python3 clang-format \
                libzmq3-dev cppzmq-dev nlohmann-json3-dev libssl-dev python3-jupyter-client python3-nbclient \
                python3-nbconvert python3-pil chromium libopenmpi-dev openmpi-bin

ASAN_ENV := ASAN_OPTIONS=detect_stack_use_after_return=0:detect_leaks=0 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: all deps build bench test timing-under-load asan asan-build gc-stress install format clean

all: build

deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep 'install ok installed' >/dev/null || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all packages present"; exit 0; fi; \
	echo "deps: missing$$missing"; \
	if [ "$$(id -u)" = 0 ]; then SUDO=""; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	else echo "deps: missing packages; run as root:"; \
	     echo "  apt-get update && apt-get install -y$$missing"; exit 1; fi; \
	if [ -z "$${KILN_APT_UPDATED:-}" ]; then $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q; fi && \
	$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends$$missing

build:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --build $(BUILD_DIR) -j$(JOBS)

bench: deps build
	@test -f $(BENCH) || { echo "bench: $(BENCH) does not exist yet (the main benchmark is not written)"; exit 1; }
	$(BUILD_DIR)/kiln $(BENCH)

# The tests with a time bound (label `timing`) run once, beside two busy loops (the
# recipe of timing-under-load): a bound that holds there holds on an idle machine,
# so a second, idle run of them added ~75 s of CI time and no check.
test: deps build
	@status=0; \
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(JOBS) -LE timing || status=1; \
	$(TIMING_UNDER_LOAD) || status=1; \
	exit $$status

# Line tables only (-g1): sanitizer reports still name file:line, and the build
# is about a quarter cheaper than with full -g; -O1 (what the sanitizers' own
# documentation suggests) compiles the instrumented code in 57% of -O2's CPU time
# (the three heaviest files; benchmarks/RESULTS.md, "CI time").
ASAN_CXX_FLAGS ?= -O1 -g1 -DNDEBUG

# The tests with a time bound (ctest label `timing`) with two busy loops beside them:
# each bound is on responsiveness with a wide margin, so it must hold on a loaded
# machine too (docs/testing.md). One test at a time: the loops are the load.
# `make test` runs them this way; this target runs only them.
TIMING_UNDER_LOAD = bash tests/support/under_load.sh 2 ctest --test-dir $(BUILD_DIR) --output-on-failure -j1 -L timing
timing-under-load: build
	$(TIMING_UNDER_LOAD)

# A unity build (KILN_UNITY_BUILD in CMakeLists.txt): the ASan tree is built once per
# CI run and never edited, so batching its sources costs nothing and saves the
# CPU seconds benchmarks/RESULTS.md records ("CI time (issue 35): the fourth round").
asan-build:
	cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_SANITIZE=ON -DKILN_UNITY_BUILD=ON \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$(ASAN_CXX_FLAGS)"
	cmake --build $(ASAN_DIR) -j$(JOBS)

# Boehm GC scans memory LeakSanitizer considers leaked, so leak checks are off;
# fake stacks for use-after-return hide stack roots from the collector.
# The golden suite first: crash_fuzz then takes each golden file's CPU time from its
# report (golden-junit.xml) instead of running them all again under ASan. The style
# tests (label style) read only the sources: `make test` has run them.
asan: deps asan-build
	@files=""; \
	for t in $$(cd tests/golden && find . -name '*.lisp' -o -name '*.scm' | sed -E 's|^\./||; s/\.(lisp|scm)$$//' | LC_ALL=C sort -u); do \
	  [ -f tests/golden/$$t.out ] || continue; \
	  case " $(ASAN_GOLDEN_SKIP) " in *" $$t "*) echo "asan: skipping golden $$t"; continue ;; esac; \
	  files="$$files tests/golden/$$t"; \
	done; \
	status=0; \
	$(ASAN_ENV) $(ASAN_DIR)/kiln test --jobs $(JOBS) --timeout $(ASAN_TEST_TIMEOUT) --junit $(ASAN_DIR)/golden-junit.xml $$files || status=1; \
	$(ASAN_ENV) KILN_FUZZ_CASES=$(ASAN_FUZZ_CASES) KILN_DIFF_FUZZ_COUNT=$(ASAN_DIFF_FUZZ_COUNT) KILN_TEST_TIMEOUT=$(ASAN_TEST_TIMEOUT) \
	  ctest --test-dir $(ASAN_DIR) --output-on-failure -j$(JOBS) --timeout 1200 -LE style -E '^golden$$' || status=1; \
	exit $$status

gc-stress: deps build
	@files=""; skipped=0; \
	for t in $$(cd tests/golden && find . -name '*.lisp' -o -name '*.scm' | sed -E 's|^\./||; s/\.(lisp|scm)$$//' | LC_ALL=C sort -u); do \
	  [ -f tests/golden/$$t.out ] || continue; \
	  case " $(GC_STRESS_SKIP) " in *" $$t "*) skipped=$$((skipped + 1)); continue ;; esac; \
	  files="$$files tests/golden/$$t"; \
	done; \
	echo "gc-stress: boot under KILN_GC_STRESS=$(GC_STRESS_EVERY), once ($(GC_STRESS_BOOT_TEST))"; \
	KILN_GC_STRESS=$(GC_STRESS_EVERY) $(BUILD_DIR)/kiln test --timeout $(GC_STRESS_TIMEOUT) tests/golden/$(GC_STRESS_BOOT_TEST) && \
	echo "gc-stress: KILN_GC_STRESS=$(GC_STRESS_EVERY) after boot, $$skipped tests skipped (GC_STRESS_SKIP)" && \
	KILN_GC_STRESS=$(GC_STRESS_EVERY) KILN_GC_STRESS_SKIP_BOOT=1 \
	  $(BUILD_DIR)/kiln test --jobs $(JOBS) --timeout $(GC_STRESS_TIMEOUT) --junit $(BUILD_DIR)/gc-stress-junit.xml $$files

install: build
	cmake --install $(BUILD_DIR)

format:
	find runtime stdlib compiler repl tests/unit tests/runtime_only tests/compiler_only tests/stdlib_only tests/support benchmarks -type f \
	  \( -name '*.cpp' -o -name '*.h' -o -name '*.c' -o -name '*.inc' \) -exec clang-format -i {} +

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR)

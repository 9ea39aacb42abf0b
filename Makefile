# cubed — build, run, test, benchmark.
#
#   make            build build/cubed
#   make run        install missing packages, build, serve on :8080 (data in ./data/)
#   make test       build and run every test (Check suites + black-box HTTP)
#   make sanitize   the same tests under ASan + UBSan (separate build dir,
#                   $(BUILD)-san: build-san by default)
#   make contract   live responses of build/cubed checked against openapi.yaml
#                   (node + npm: installs tests/contract's pinned packages)
#   make test-slow  the slow suites (optimal_slow: superflip, 20 moves,
#                   proved optimal on the level-OPTIMAL_LEVEL tables)
#   make bench      benchmarks, one "name: value unit" line per figure
#   make bench-optimal  the optimal 3×3 solver over 100 held-fixed random
#                   states (hours on a small table; OPTIMAL_LEVEL, 2), and
#                   two-phase at 20 moves over 1,000
#   make soak       a mixed load for SOAK_S seconds (60): errors (must be 0),
#                   p99 latency, RSS at start and end (growth < 10 %)
#   make fuzz       each libFuzzer target (tests/fuzz/) for FUZZ_S seconds
#                   (clang, ASan + UBSan, separate build dir build-fuzz/)
#   make memcheck   the core and store Check suites under valgrind memcheck
#                   (separate build dir $(BUILD)-vg)

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
CFLAGS  ?=
CFLAGS  += -std=c11 -Wall -Wextra -Wpedantic -Werror $(OPT) -g \
           -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -MMD -MP
PKGS     = libmicrohttpd jansson sqlite3
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
LDLIBS  += -lpthread -lm

CORE_SRC   := $(wildcard core/*.c)
SERVER_SRC := $(filter-out server/main.c,$(wildcard server/*.c))
TEST_SRC   := $(wildcard tests/*.c)
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
BENCH_SRC  := $(wildcard bench/*.c)

CORE_OBJ   := $(CORE_SRC:%.c=$(BUILD)/%.o)
SERVER_OBJ := $(SERVER_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ   := $(TEST_SRC:%.c=$(BUILD)/%.o)
BENCH_OBJ  := $(BENCH_SRC:%.c=$(BUILD)/%.o)

PORT ?= 8080
# Solver tables (72 MB, deterministic bytes) cached once for every server
# the tests start, whatever the build flags.
TABLES ?= build/tables

.PHONY: all run test contract sanitize bench soak clean deps fuzz \
	fuzz-build fuzz-replay memcheck test-slow bench-optimal

all: $(BUILD)/cubed

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Icore -Iserver -c $< -o $@

$(BUILD)/libcubecore.a: $(CORE_OBJ)
	$(AR) rcs $@ $^

$(BUILD)/cubed: $(BUILD)/server/main.o $(SERVER_OBJ) $(BUILD)/libcubecore.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(BUILD)/run_tests: $(TEST_OBJ) $(SERVER_OBJ) $(BUILD)/libcubecore.a
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS) $(PKG_LIBS) $(LDLIBS)

$(BUILD)/bench/bench: $(BENCH_OBJ) $(BUILD)/libcubecore.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

deps:
	@bash .ci/install-deps

run: deps
	@$(MAKE) --no-print-directory $(BUILD)/cubed
	@mkdir -p data
	$(BUILD)/cubed --port $(PORT) --db ./data/cubed.db

test: $(BUILD)/cubed $(BUILD)/run_tests fuzz-replay
	@mkdir -p $(TABLES)
	CUBED_BIN=$(BUILD)/cubed CUBED_GOLDEN=tests/golden CUBED_TABLES=$(TABLES) $(BUILD)/run_tests

# Slow suites: only when CUBED_SLOW=1 (run_tests.c), at the optimal
# tables' level OPTIMAL_LEVEL, cached in $(TABLES) like the others.
OPTIMAL_LEVEL ?= 2
test-slow: $(BUILD)/cubed $(BUILD)/run_tests
	@mkdir -p $(TABLES)
	CUBED_SLOW=1 CK_RUN_SUITE=optimal_slow CUBED_OPTIMAL_LEVEL=$(OPTIMAL_LEVEL) \
		CUBED_BIN=$(BUILD)/cubed CUBED_GOLDEN=tests/golden \
		CUBED_TABLES=$(TABLES) $(BUILD)/run_tests

# The fuzz targets linked with a plain main (tests/fuzz/replay.c) instead
# of libFuzzer: every committed corpus input and crash regression runs
# through the target's laws with the ordinary compiler (and under the
# sanitizers in `make sanitize`).
FUZZ_SERVER_NAMES := api evlog
FUZZ_CORE_NAMES := $(filter-out $(FUZZ_SERVER_NAMES),$(FUZZ_NAMES))

$(FUZZ_SERVER_NAMES:%=$(BUILD)/fuzz-replay/fuzz_%): $(BUILD)/fuzz-replay/fuzz_%: \
		$(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay.o \
		$(SERVER_OBJ) $(BUILD)/libcubecore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(FUZZ_CORE_NAMES:%=$(BUILD)/fuzz-replay/fuzz_%): $(BUILD)/fuzz-replay/fuzz_%: \
		$(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay.o \
		$(BUILD)/libcubecore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

fuzz-replay: $(FUZZ_NAMES:%=$(BUILD)/fuzz-replay/fuzz_%)
	@for t in $(FUZZ_NAMES); do \
		dirs=tests/fuzz/corpus/$$t; \
		[ -d tests/fuzz/regress/$$t ] && dirs="$$dirs tests/fuzz/regress/$$t"; \
		$(BUILD)/fuzz-replay/fuzz_$$t $$dirs || exit 1; \
	done

# npm ci fails (and so does the target) if the packages cannot be had: the
# check never skips itself.
contract: $(BUILD)/cubed
	npm ci --prefix tests/contract --no-audit --no-fund
	@mkdir -p $(TABLES)
	CUBED_TABLES=$(TABLES) node tests/contract/check.mjs $(BUILD)/cubed openapi.yaml schema

sanitize:
	$(MAKE) --no-print-directory BUILD=$(BUILD)-san OPT="-O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" test

$(BUILD)/bench/watch: bench/live/watch.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -lpthread

bench: $(BUILD)/bench/bench $(BUILD)/bench/watch $(BUILD)/cubed
	bash bench/run.sh $(BUILD)

bench-optimal: $(BUILD)/bench/bench
	@mkdir -p $(TABLES)
	CUBED_TABLES=$(TABLES) $(BUILD)/bench/bench --optimal $(OPTIMAL_LEVEL) 100 2
	$(BUILD)/bench/bench --twenty 1000

SOAK_S ?= 60
soak: $(BUILD)/cubed
	@mkdir -p $(TABLES)
	CUBED_TABLES=$(TABLES) SOAK_S=$(SOAK_S) bash bench/soak.sh $(BUILD)
# libFuzzer: clang only. Core and server objects get the sanitizers and
# libFuzzer's coverage instrumentation (fuzzer-no-link); each target is
# linked with -fsanitize=fuzzer. tests/fuzz/run.sh runs one target for
# FUZZ_S seconds over a scratch copy of its corpus and fails on any crash,
# broken law, leak or timeout (the input is left in build-fuzz/artifacts/).
FUZZ_S     ?= 30
FUZZ_CC    ?= clang
FUZZ_BUILD ?= build-fuzz
FUZZ_SAN    = -fsanitize=address,undefined -fno-sanitize-recover=all

fuzz-build:
	$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) \
		OPT="-O1 -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer-no-link" \
		$(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz/fuzz_%)

$(FUZZ_SERVER_NAMES:%=$(BUILD)/fuzz/fuzz_%): $(BUILD)/fuzz/fuzz_%: \
		$(BUILD)/tests/fuzz/fuzz_%.o $(SERVER_OBJ) $(BUILD)/libcubecore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(FUZZ_CORE_NAMES:%=$(BUILD)/fuzz/fuzz_%): $(BUILD)/fuzz/fuzz_%: \
		$(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/libcubecore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzz: fuzz-build
	@for t in $(FUZZ_NAMES); do \
		bash tests/fuzz/run.sh $(FUZZ_BUILD) $$t $(FUZZ_S) || exit 1; \
	done

# The core Check suites and the store suite under valgrind memcheck, one
# suite at a time in one process each (CK_FORK=no, so memcheck sees every
# test): any error or definite leak fails. Built without optimisation beyond -O1 and with
# the suites' reduced loop counts for slow tools (SANITIZED=1, as under
# ASan), fewer random states where the suites take a count from the
# environment; about 10 minutes on 2 shared cores.
MEMCHECK_SUITES ?= cube alg model render index cubie validate pattern store \
		   solve beginner
VALGRIND ?= valgrind -q --error-exitcode=1 --leak-check=full \
	    --errors-for-leak-kinds=definite,indirect

memcheck:
	$(MAKE) --no-print-directory BUILD=$(BUILD)-vg OPT="-O1 -DSANITIZED=1" \
		$(BUILD)-vg/run_tests
	@mkdir -p $(TABLES)
	@for s in $(MEMCHECK_SUITES); do \
		echo "memcheck: $$s"; \
		CK_FORK=no CK_RUN_SUITE=$$s CUBED_GOLDEN=tests/golden \
		CUBED_TABLES=$(TABLES) CUBED_MODEL_ITERS=100 \
		CUBED_SOLVE_N=50 CUBED_BEGINNER_N=50 \
		$(VALGRIND) $(BUILD)-vg/run_tests || exit 1; \
	done

clean:
	rm -rf build build-san build-fuzz build-vg

# Containers. docker-smoke builds docker/Dockerfile with podman on a
# debootstrap'd bookworm base (no Docker engine or registry needed), runs
# it on a loopback port and curls it: minutes, and root (or sudo) for
# apt-get and podman, so it is not part of test or CI. docker-lint is what
# CI runs on the two files (npx, pinned versions).
DOCKERFILELINT ?= dockerfilelint@1.8.0
DCLINT         ?= dclint@3.1.0

.PHONY: docker-smoke docker-lint

docker-smoke:
	bash docker/smoke.sh

docker-lint:
	npx -y $(DOCKERFILELINT) docker/Dockerfile
	npx -y $(DCLINT) docker/compose.yaml

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

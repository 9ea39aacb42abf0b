# cubed — build, run, test, benchmark.
#
#   make            build build/cubed
#   make run        install missing packages, build, serve on :8080 (data in ./data/)
#   make test       build and run every test (Check suites + black-box HTTP)
#   make sanitize   the same tests under ASan + UBSan (separate build dir)
#   make contract   live responses of build/cubed checked against openapi.yaml
#                   (node + npm: installs tests/contract's pinned packages)
#   make bench      benchmarks, one "name: value unit" line per figure
#   make soak       a mixed load for SOAK_S seconds (60): errors (must be 0),
#                   p99 latency, RSS at start and end (growth < 10 %)

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
BENCH_SRC  := $(wildcard bench/*.c)

CORE_OBJ   := $(CORE_SRC:%.c=$(BUILD)/%.o)
SERVER_OBJ := $(SERVER_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ   := $(TEST_SRC:%.c=$(BUILD)/%.o)
BENCH_OBJ  := $(BENCH_SRC:%.c=$(BUILD)/%.o)

PORT ?= 8080
# Solver tables (72 MB, deterministic bytes) cached once for every server
# the tests start, whatever the build flags.
TABLES ?= build/tables

.PHONY: all run test contract sanitize bench soak clean deps

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

test: $(BUILD)/cubed $(BUILD)/run_tests
	@mkdir -p $(TABLES)
	CUBED_BIN=$(BUILD)/cubed CUBED_GOLDEN=tests/golden CUBED_TABLES=$(TABLES) $(BUILD)/run_tests

# npm ci fails (and so does the target) if the packages cannot be had: the
# check never skips itself.
contract: $(BUILD)/cubed
	npm ci --prefix tests/contract --no-audit --no-fund
	@mkdir -p $(TABLES)
	CUBED_TABLES=$(TABLES) node tests/contract/check.mjs $(BUILD)/cubed openapi.yaml schema

sanitize:
	$(MAKE) --no-print-directory BUILD=build-san OPT="-O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" test

$(BUILD)/bench/watch: bench/live/watch.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -lpthread

bench: $(BUILD)/bench/bench $(BUILD)/bench/watch $(BUILD)/cubed
	bash bench/run.sh $(BUILD)

SOAK_S ?= 60
soak: $(BUILD)/cubed
	@mkdir -p $(TABLES)
	CUBED_TABLES=$(TABLES) SOAK_S=$(SOAK_S) bash bench/soak.sh $(BUILD)

clean:
	rm -rf build build-san

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

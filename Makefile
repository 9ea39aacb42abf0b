# cubed — build, run, test, benchmark.
#
#   make            build build/cubed, and the web page into build/web when
#                   node and npm are installed
#   make run        install missing packages (node and npm too), build, serve
#                   the page and the API on :8080 (data in ./data/)
#   make test       install missing packages (Chromium too), build and run
#                   the everyday tests (Check suites but the cases tagged
#                   "slow", black-box HTTP, then the browser tests: make test-web)
#   make test-slow  the full sweeps the everyday suites shorten: the cases
#                   tagged "slow" (big-cube sweeps), then SLOW_SUITES again
#                   with their full loop counts (CUBED_SLOW=1); CI runs it
#   make test-pg    the store suites on a private PostgreSQL cluster, and
#                   the two-node suite (needs the postgresql package)
#   make test-web   the browser tests alone (tests/web: Debian's headless
#                   Chromium driven by playwright-core)
#   make screenshot the README's screenshot (docs/screenshot.png), taken by
#                   the browser tests
#   make sanitize   the same tests under ASan + UBSan (separate build dir,
#                   $(BUILD)-san: build-san by default)
#   make contract   live responses of build/cubed checked against openapi.yaml
#                   (node + npm: installs tests/contract's pinned packages)
#   make test-optimal  the optimal solver's slow suite (optimal_slow:
#                   superflip, 20 moves, proved optimal on the level-
#                   OPTIMAL_LEVEL tables: building the 2.5 GB level-2 table
#                   takes ~7 min here, the searches as long again; not in CI)
#   make client-check  TypeScript types generated from openapi.yaml, a typed
#                   client checked with tsc --strict and run against a live
#                   server (node + npm: tests/client's pinned packages)
#   make bench      benchmarks, one "name: value unit" line per figure
#   make bench-dataset  training data alone (bench/dataset.sh): cubed
#                   dataset to files and over HTTP beside NumPy
#   make bench-optimal  the optimal 3×3 solver over 100 held-fixed random
#                   states (hours on a small table; OPTIMAL_LEVEL, 2), then
#                   make bench-twenty
#   make bench-twenty  two-phase at 20 moves over 1,000 random states
#                   beside min2phase on the same states, same run
#   make soak       a mixed load for SOAK_S seconds (60): errors (must be 0),
#                   p99 latency, RSS at start and end (growth < 10 %); then
#                   the hostile suite at HOSTILE_SCALE (5) times its size
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
PKGS     = libmicrohttpd jansson sqlite3 zlib libbrotlienc libpq
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# the tests decode what the server encodes with the libraries' own decoders
CHECK_LIBS := $(shell pkg-config --libs check libbrotlidec 2>/dev/null)
LDLIBS  += -lpthread -lm

CORE_SRC   := $(wildcard core/*.c core/reduce/*.c)
SERVER_SRC := $(wildcard server/*/*.c server/store/*/*.c)
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

.PHONY: all run test test-run test-slow test-pg bench-pg contract client-check sanitize bench soak \
	clean deps deps-test fuzz FORCE fuzz-build fuzz-replay memcheck web \
	test-web bench-web screenshot test-optimal bench-optimal bench-twenty \
	bench-dataset

all: $(BUILD)/cubed web

# The web page (web/): esbuild bundles it with three.js into
# $(BUILD)/web, which cubed serves from beside itself. npm ci runs only
# when a lockfile changed (the stamp), so later builds are offline. Without
# node the page is skipped with a note: the API works without it.
HAVE_NODE := $(shell command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && echo 1)
WEB_SRC   := $(wildcard web/src/*) web/index.html web/build.mjs

ifeq ($(HAVE_NODE),1)
web: $(BUILD)/web/index.html
else
web:
	@echo "note: node and npm are not installed: the web page is not built (make run installs them)"
endif

web/node_modules/.stamp: web/package.json web/package-lock.json
	npm ci --prefix web --no-audit --no-fund
	@touch $@

$(BUILD)/web/index.html: web/node_modules/.stamp $(WEB_SRC)
	node web/build.mjs $(BUILD)/web

tests/web/node_modules/.stamp: tests/web/package.json tests/web/package-lock.json
	npm ci --prefix tests/web --no-audit --no-fund
	@touch $@

# Each room of server/ (docs/architecture.md) sees its own headers and
# those of the rooms below it, nothing above: an include that points up
# does not compile. core/ sees only core/. Bottom to top: codec, base,
# store (with its engines), sessions, then live and solve side by side,
# dataset (over solve), api, http, and main.c over all of them. The
# tests, fuzz targets and benchmarks see everything.
INC_core     := -Icore
INC_codec    := $(INC_core) -Iserver/codec
INC_base     := $(INC_codec) -Iserver/base
INC_store    := $(INC_base) -Iserver/store
INC_sessions := $(INC_store) -Iserver/sessions
INC_live     := $(INC_sessions) -Iserver/live
INC_solve    := $(INC_sessions) -Iserver/solve
INC_dataset  := $(INC_solve) -Iserver/dataset
INC_api      := $(INC_live) -Iserver/solve -Iserver/dataset -Iserver/api
INC_http     := $(INC_api) -Iserver/http
INC_all      := $(INC_http)
INC = $(INC_all)
$(BUILD)/core/%.o: INC = $(INC_core)
$(BUILD)/server/codec/%.o: INC = $(INC_codec)
$(BUILD)/server/base/%.o: INC = $(INC_base)
$(BUILD)/server/store/%.o: INC = $(INC_store)
$(BUILD)/server/sessions/%.o: INC = $(INC_sessions)
$(BUILD)/server/live/%.o: INC = $(INC_live)
$(BUILD)/server/solve/%.o: INC = $(INC_solve)
$(BUILD)/server/dataset/%.o: INC = $(INC_dataset)
$(BUILD)/server/api/%.o: INC = $(INC_api)
$(BUILD)/server/http/%.o: INC = $(INC_http)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) $(INC) -c $< -o $@

# The commit /version and cubed_build_info report: version.c alone is
# compiled with it, and again only when it changes (the stamp file is
# rewritten only then).
GIT_COMMIT := $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
$(BUILD)/commit-stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(GIT_COMMIT)' | cmp -s - $@ || echo '$(GIT_COMMIT)' > $@
$(BUILD)/server/base/version.o: $(BUILD)/commit-stamp
$(BUILD)/server/base/version.o: CFLAGS += -DCUBED_COMMIT='"$(GIT_COMMIT)"'
FORCE:

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

deps-test:
	@bash .ci/install-deps --test

run: deps
	@$(MAKE) --no-print-directory $(BUILD)/cubed $(BUILD)/web/index.html
	@mkdir -p data
	@echo "cubed: open http://localhost:$(PORT)/ to play"
	$(BUILD)/cubed --port $(PORT) --db ./data/cubed.db

# deps first (a fresh machine needs the -dev packages and Chromium), then
# a new make so pkg-config sees them. The browser suites run after the C
# suites, one file at a time (each starts its own server and Chromium),
# never beside a build: they hold the page to deadlines of a second.
test: deps-test
	@$(MAKE) --no-print-directory test-run

# The Check suites run as two runners at once, one core each
# (tests/both.sh): the suites named in TEST_HALF (the solvers' CPU-bound
# ones) in one, every other suite in the other (CUBED_SUITES /
# CUBED_SKIP_SUITES, tests/run_tests.c), so each suite runs exactly once
# whatever the list says; a name that is no suite stops the run. Each
# runner's output is printed whole, one after the other, when both are
# done, and the run fails if either failed.
TEST_HALF := reduce optimal solve beginner model pattern cubie http_beginner
test-run: $(BUILD)/cubed $(BUILD)/run_tests fuzz-replay
	@bash tests/refs.sh
	@mkdir -p $(TABLES)
	@export CK_EXCLUDE_TAGS=slow CUBED_BIN=$(BUILD)/cubed \
		CUBED_GOLDEN=tests/golden CUBED_TABLES=$(TABLES); \
	bash tests/both.sh \
		'CUBED_SUITES="$(TEST_HALF)"' \
		'CUBED_SUITES="$(TEST_HALF)" $(BUILD)/run_tests' \
		'CUBED_SKIP_SUITES="$(TEST_HALF)"' \
		'CUBED_SKIP_SUITES="$(TEST_HALF)" $(BUILD)/run_tests'
	@$(MAKE) --no-print-directory test-web

# The slow sweeps: the Check cases tagged "slow" (tcase_set_tags), then
# these suites again with their full loop counts (tests/require.h:
# test_slow()). make test runs a short version of each. A branch with a
# slow suite of its own tags its case "slow" or adds it here:
# SLOW_SUITES += name. Two runners at once, one core each
# (tests/both.sh): the slow cases also tagged SLOW_HALF_TAG (the
# reductions' sweeps, about ten minutes) in one; every other slow case,
# then the SLOW_SUITES sweeps, in the other. Both may build the 4×4 and
# 5×5 tables into $(TABLES) at once: each writes its own temporary file
# and renames it.
SLOW_SUITES := solve beginner
SLOW_HALF_TAG := long
slow_env = CUBED_SLOW=1 CUBED_BIN=$(BUILD)/cubed CUBED_GOLDEN=tests/golden \
	CUBED_TABLES=$(TABLES)
test-slow: $(BUILD)/cubed $(BUILD)/run_tests
	@mkdir -p $(TABLES)
	@bash tests/both.sh \
		'slow cases tagged $(SLOW_HALF_TAG)' \
		'CK_INCLUDE_TAGS=$(SLOW_HALF_TAG) $(slow_env) $(BUILD)/run_tests' \
		'the other slow cases, then $(SLOW_SUITES)' \
		'CK_INCLUDE_TAGS=slow CK_EXCLUDE_TAGS=$(SLOW_HALF_TAG) $(slow_env) \
			$(BUILD)/run_tests || exit 1; \
		for s in $(SLOW_SUITES); do \
			echo "test-slow: $$s"; \
			CK_RUN_SUITE=$$s CK_EXCLUDE_TAGS=slow $(slow_env) \
				$(BUILD)/run_tests || exit 1; \
		done'

# The store suites again on PostgreSQL (tests/run_tests.c, CUBED_TEST_DB=pg):
# a private cluster for the run (tests/pg_cluster.c: initdb + pg_ctl in a
# temporary directory, a free loopback port, stopped at the end), the
# sessions, live, barrage and crash suites on it, and the PostgreSQL
# engine's and two-node suites. CI runs it after make test.
test-pg: $(BUILD)/cubed $(BUILD)/run_tests
	@mkdir -p $(TABLES)
	CUBED_TEST_DB=pg CK_EXCLUDE_TAGS=slow CUBED_BIN=$(BUILD)/cubed CUBED_GOLDEN=tests/golden \
		CUBED_TABLES=$(TABLES) $(BUILD)/run_tests

# npm ci and Chromium must be there: the browser tests never skip
# themselves (.ci/install-deps installs chromium).
WEB_TESTS ?= tests/web/*.test.mjs
test-web: $(BUILD)/cubed $(BUILD)/web/index.html tests/web/node_modules/.stamp
	@mkdir -p $(TABLES)
	CUBED_BIN=$(BUILD)/cubed CUBED_WEB_ROOT=$(BUILD)/web CUBED_TABLES=$(TABLES) \
		node --test --test-concurrency=1 --test-timeout=120000 $(WEB_TESTS)

screenshot: $(BUILD)/cubed $(BUILD)/web/index.html tests/web/node_modules/.stamp
	CUBED_BIN=$(BUILD)/cubed CUBED_WEB_ROOT=$(BUILD)/web CUBED_TABLES=$(TABLES) \
		CUBED_SCREENSHOT=docs/screenshot.png node --test tests/web/solve.test.mjs

# The optimal solver's slow suite: only when CUBED_SLOW=1 (run_tests.c),
# at the optimal tables' level OPTIMAL_LEVEL, cached in $(TABLES) like the
# others. Too slow for CI (a 2.5 GB table built on every clean machine);
# make test checks the optimal solver with brute-force proofs to 8 moves.
OPTIMAL_LEVEL ?= 2
test-optimal: $(BUILD)/cubed $(BUILD)/run_tests
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
contract: $(BUILD)/cubed $(BUILD)/web/index.html
	npm ci --prefix tests/contract --no-audit --no-fund
	@mkdir -p $(TABLES)
	CUBED_TABLES=$(TABLES) node tests/contract/check.mjs $(BUILD)/cubed openapi.yaml schema

# The typed-client check: types generated by the pinned openapi-typescript,
# tests/client/client.ts type-checked with tsc --strict (it stops compiling
# if a main route's bodies become unknown again), then run against a
# server it spawns. npm ci fails if the packages cannot be had.
client-check: $(BUILD)/cubed
	npm ci --prefix tests/client --no-audit --no-fund
	npm run --prefix tests/client --silent gen
	npm run --prefix tests/client --silent build
	@mkdir -p $(TABLES)
	node tests/client/build/client.js $(BUILD)/cubed $(TABLES)

sanitize:
	$(MAKE) --no-print-directory BUILD=$(BUILD)-san OPT="-O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" test

$(BUILD)/bench/watch: bench/live/watch.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -lpthread

bench: $(BUILD)/bench/bench $(BUILD)/bench/watch $(BUILD)/cubed
	@mkdir -p $(TABLES)
	CUBED_TABLES=$(abspath $(TABLES)) bash bench/run.sh $(BUILD)
	@$(MAKE) --no-print-directory bench-web

# Training data's figures alone (bench/dataset.sh, also part of make
# bench): cubed dataset to files and over HTTP beside a NumPy generator.
bench-dataset: $(BUILD)/cubed
	@mkdir -p $(TABLES)
	CUBED_TABLES=$(abspath $(TABLES)) bash bench/dataset.sh $(BUILD)

# PostgreSQL's figures (bench/pg.sh): durable move writes on 1 and 2 nodes
# against SQLite in the same run, and cross-node live delivery latency.
bench-pg: $(BUILD)/bench/watch $(BUILD)/cubed
	bash bench/pg.sh $(BUILD)

# The page's figures (bench/web): time to first render and move-to-visible
# latency between two browser pages, each beside the API's round trip.
bench-web: $(BUILD)/cubed $(BUILD)/web/index.html tests/web/node_modules/.stamp
	@mkdir -p $(TABLES)
	CUBED_BIN=$(BUILD)/cubed CUBED_WEB_ROOT=$(BUILD)/web CUBED_TABLES=$(TABLES) \
		node bench/web/bench.mjs

bench-optimal: $(BUILD)/bench/bench
	@mkdir -p $(TABLES)
	CUBED_TABLES=$(TABLES) $(BUILD)/bench/bench --optimal $(OPTIMAL_LEVEL) 100 2
	@$(MAKE) --no-print-directory bench-twenty

# At most 20 moves: cubed's two-phase against min2phase (the build
# cubing.js ships, bench/min2phase.mjs) on the same 1,000 random states,
# three rounds back to back (bench/twenty.sh; node + npm, a minute or two)
bench-twenty: $(BUILD)/bench/bench
	bash bench/twenty.sh $(BUILD)

SOAK_S ?= 60
# then the adversarial suite (tests/check_hostile.c) at HOSTILE_SCALE times
# its everyday attack sizes
HOSTILE_SCALE ?= 5
soak: $(BUILD)/cubed $(BUILD)/run_tests
	@mkdir -p $(TABLES)
	CUBED_TABLES=$(TABLES) SOAK_S=$(SOAK_S) bash bench/soak.sh $(BUILD)
	CK_RUN_SUITE=hostile CUBED_HOSTILE_SCALE=$(HOSTILE_SCALE) CUBED_BIN=$(BUILD)/cubed \
		CUBED_GOLDEN=tests/golden CUBED_TABLES=$(TABLES) $(BUILD)/run_tests
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

# Two lists of targets at once, one core each (tests/both.sh): those in
# FUZZ_HALF and the rest.
FUZZ_HALF := alg cubie facelets pattern
fuzz_loop = for t in $(1); do \
		bash tests/fuzz/run.sh $(FUZZ_BUILD) $$t $(FUZZ_S) || exit 1; \
	done
fuzz: fuzz-build
	@bash tests/both.sh \
		"fuzz: $(filter $(FUZZ_HALF),$(FUZZ_NAMES))" \
		'$(call fuzz_loop,$(filter $(FUZZ_HALF),$(FUZZ_NAMES)))' \
		"fuzz: $(filter-out $(FUZZ_HALF),$(FUZZ_NAMES))" \
		'$(call fuzz_loop,$(filter-out $(FUZZ_HALF),$(FUZZ_NAMES)))'

# The core Check suites and the store suite under valgrind memcheck, one
# suite at a time in one process each (CK_FORK=no, so memcheck sees every
# test): any error or definite leak fails. Two lists at once, one core
# each (tests/both.sh): the suites in MEMCHECK_HALF and the rest (in a
# CI run here store and solve took 4.5 minutes, the rest 10.5, of which
# pattern about 3). Built without
# optimisation beyond -O1 and with the suites' reduced loop counts for
# slow tools (SANITIZED=1, as under ASan), fewer random states where the
# suites take a count from the environment.
MEMCHECK_SUITES ?= cube alg model render index cubie validate pattern store \
		   solve beginner
MEMCHECK_HALF := store solve pattern
VALGRIND ?= valgrind -q --error-exitcode=1 --leak-check=full \
	    --errors-for-leak-kinds=definite,indirect
memcheck_loop = for s in $(1); do \
		echo "memcheck: $$s"; \
		CK_FORK=no CK_RUN_SUITE=$$s CUBED_GOLDEN=tests/golden \
		CUBED_TABLES=$(TABLES) CUBED_MODEL_ITERS=100 \
		CUBED_SOLVE_N=50 CUBED_BEGINNER_N=50 \
		$(VALGRIND) $(BUILD)-vg/run_tests || exit 1; \
	done

memcheck:
	$(MAKE) --no-print-directory BUILD=$(BUILD)-vg OPT="-O1 -DSANITIZED=1" \
		$(BUILD)-vg/run_tests
	@mkdir -p $(TABLES)
	@bash tests/both.sh \
		"memcheck: $(filter $(MEMCHECK_HALF),$(MEMCHECK_SUITES))" \
		'$(call memcheck_loop,$(filter $(MEMCHECK_HALF),$(MEMCHECK_SUITES)))' \
		"memcheck: $(filter-out $(MEMCHECK_HALF),$(MEMCHECK_SUITES))" \
		'$(call memcheck_loop,$(filter-out $(MEMCHECK_HALF),$(MEMCHECK_SUITES)))'

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

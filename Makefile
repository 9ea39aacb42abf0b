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
#                   the two-node and fault suites (needs the postgresql
#                   package, and nginx-light and haproxy for the rolling
#                   restarts)
#   make test-web   the browser tests alone (tests/web: Debian's headless
#                   Chromium driven by playwright-core)
#   make screenshot the README's screenshot (docs/screenshot.png) and the
#                   race's (docs/race.png), taken by the browser tests
#   make sanitize   the same tests under ASan + UBSan (separate build dir,
#                   $(BUILD)-san: build-san by default)
#   make contract   live responses of build/cubed checked against openapi.yaml
#                   (node + npm: installs tests/contract's pinned packages)
#   make test-optimal  the optimal solver's slow suite (optimal_slow:
#                   superflip, 20 moves, proved optimal on the level-
#                   OPTIMAL_LEVEL tables (2: building the 2.5 GB table takes
#                   7-9 CPU-minutes), and 20 random states' lengths against
#                   nissy's when bench-optimal has built it; not in CI)
#   make client-check  TypeScript types generated from openapi.yaml, a typed
#                   client checked with tsc --strict and run against a live
#                   server (node + npm: tests/client's pinned packages)
#   make bench      benchmarks, one "name: value unit" line per figure
#   make bench-dataset  training data alone (bench/dataset.sh): cubed
#                   dataset to files and over HTTP beside NumPy
#   make bench-optimal  the optimal 3×3 solver beside nissy's H48 (built
#                   from its source copy, bench/optimal_vs.sh), one thread
#                   each, state by state, on OPTIMAL_VS_N (30) held-fixed
#                   random states and the superflip, at each level of
#                   OPTIMAL_VS_LEVELS ("2"); hours. Then make bench-twenty
#   make bench-twenty  two-phase at 20 moves over 1,000 random states
#                   beside min2phase on the same states, same run
#   make soak       a mixed load for SOAK_S seconds (60): errors (must be 0),
#                   p99 latency, RSS at start and end (growth < 10 %); then
#                   the http_faults suite at HOSTILE_SCALE (5) times its size
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
TEST_SRC   := $(wildcard tests/unit/*.c tests/http/*.c tests/lib/*.c)
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
BENCH_SRC  := $(wildcard bench/*.c)

CORE_OBJ   := $(CORE_SRC:%.c=$(BUILD)/%.o)
SERVER_OBJ := $(SERVER_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ   := $(TEST_SRC:%.c=$(BUILD)/%.o)
BENCH_OBJ  := $(BENCH_SRC:%.c=$(BUILD)/%.o)

PORT ?= 8080
# A stopping cubed drains for --drain-s (5 s by default: docs/scaling.md)
# before it closes its listener. Every server a recipe here starts (make
# run, the tests, the benchmarks, the contract) stops at once instead;
# CUBED_DRAIN_S=5 make ... keeps the production default.
export CUBED_DRAIN_S ?= 0
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
$(BUILD)/tests/%.o: INC = $(INC_all) -Itests/lib

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
# a new make so pkg-config sees them. The browser suites run one file at a
# time (each starts its own server and Chromium) beside the C suites,
# which run at nice 19: the page is held to deadlines of a second, and a
# browser test mostly waits (about 0.6 of a core), so the C units take the
# idle time without slowing the page.
test: deps-test
	@$(MAKE) --no-print-directory test-run

# ---- the test graph ---------------------------------------------------
# Every suite, part of a suite, fuzz target or check that runs alone is a
# unit: a phony target whose recipe runs it through tests/unit.sh (its
# output in one block, then its wall and CPU seconds). make -j2 -O runs a
# stage's units two at a time in the order listed, longest first, so both
# cores stay busy to the end; -k runs every unit even after one failed,
# and tests/units_report.sh names the failures and the longest units.
#
# The longest suites run as parts: CUBED_PART=k/N deals a suite's cases
# out by number (tests/lib/require.h), so a new case is in some part without
# a word here. SPLIT_SUITES names them, suite:N each (make test's parts;
# SLOW_SPLIT those of make test-slow's slow cases). Every other suite is
# one unit; EVERYDAY_SUITES is in the order to start them, and a last
# unit runs whatever suite neither list names (CUBED_SKIP_SUITES), so
# each suite runs exactly once whatever the lists say (a misspelt name
# stops the runner).
SPLIT_SUITES := reduce:5 http_solve:2
SLOW_SPLIT := reduce:7 http_solve:3 http_faults:1
EVERYDAY_SUITES := pattern model solve optimal cubie beginner \
	http http_beginner http_sessions http_timed http_races http_faults \
	http_jobs http_live http_edges \
	http_fair crash sessions barrage http_protocol limits dataset http_dataset \
	render index codec cube alg validate store upgrade api static \
	solve_pool client_limits drain
UNIT = @UNITS_LOG=$(UNITS_LOG) bash tests/unit.sh
test_env = CUBED_BIN=$(1)/cubed CUBED_GOLDEN=tests/golden CUBED_TABLES=$(TABLES)
parts = $(shell seq 0 $$(($(1) - 1)))
# the units of the parts of split suites $(1) (suite:N words), named
# $(2)/part-suite.k.N; part_env: a unit name's stem as the runner's
# environment
split_units = $(foreach p,$(1),$(foreach k,$(call parts,$(word 2,$(subst :, ,$(p)))),$(2)/part-$(word 1,$(subst :, ,$(p))).$(k).$(word 2,$(subst :, ,$(p)))))
part_env = CK_RUN_SUITE=$(word 1,$(subst ., ,$(1))) CUBED_PART=$(word 2,$(subst ., ,$(1)))/$(word 3,$(subst ., ,$(1)))
split_names = $(foreach p,$(1),$(word 1,$(subst :, ,$(p))))

# the units of a run of the everyday suites with the build in $(1), named
# under $(2)
define everyday_units
$(2)/part-%: $(1)/cubed $(1)/run_tests
	$$(UNIT) $$@ 'CK_EXCLUDE_TAGS=slow $$(call part_env,$$*) $(call test_env,$(1)) $(1)/run_tests'
$(2)/suite-%: $(1)/cubed $(1)/run_tests
	$$(UNIT) $$@ 'CK_EXCLUDE_TAGS=slow CK_RUN_SUITE=$$* $(call test_env,$(1)) $(1)/run_tests'
$(2)/unlisted: $(1)/cubed $(1)/run_tests
	$$(UNIT) $$@ 'CK_EXCLUDE_TAGS=slow CUBED_NONE_OK=1 CUBED_SKIP_SUITES="$(call split_names,$(SPLIT_SUITES)) $(EVERYDAY_SUITES)" $(call test_env,$(1)) $(1)/run_tests'
$(2)/fuzz-replay: $(1)/fuzz-replay-bins
	$$(UNIT) $$@ '$(MAKE) --no-print-directory BUILD=$(1) fuzz-replay-run'
$(2)-units: $(call split_units,$(SPLIT_SUITES),$(2)) \
	$(EVERYDAY_SUITES:%=$(2)/suite-%) $(2)/unlisted $(2)/fuzz-replay
.PHONY: $(2)/unlisted $(2)/fuzz-replay $(2)-units
endef

UNITS_LOG ?= $(abspath $(BUILD))/units.log

# make test: the everyday suites (a short version of each sweep; the
# cases tagged "slow" are make test-slow's) at nice 19, and the browser
# tests beside them at normal priority (their output after the units').
# Everything is built first: a build beside the browser tests would be at
# their priority.
test-run: $(BUILD)/cubed $(BUILD)/run_tests $(BUILD)/web/index.html \
		tests/web/node_modules/.stamp
	@mkdir -p $(TABLES)
	@rm -f $(UNITS_LOG)
	@$(MAKE) --no-print-directory test-web >$(BUILD)/test-web.log 2>&1 & \
		web=$$!; \
		nice -n 19 $(MAKE) --no-print-directory -j2 -O -k test-units; \
		units=$$?; \
		bash tests/units_report.sh $(UNITS_LOG) || units=1; \
		wait $$web; webrc=$$?; \
		cat $(BUILD)/test-web.log; \
		echo "browser tests: exit $$webrc"; \
		[ $$units -eq 0 ] && [ $$webrc -eq 0 ]
$(eval $(call everyday_units,$(BUILD),test))
# no file names a repository file that is not there (tests/refs.sh)
test-units: test/refs
test/refs:
	$(UNIT) $@ 'bash tests/refs.sh'
.PHONY: test/refs

# make test-slow: the full sweeps make test shortens: the cases tagged
# "slow" of the suites in SLOW_SPLIT (the reduce suite's long sweeps, the
# 4×4's three phases, the 5×5's five; http_solve's big cubes' tables
# through the server and effort budgets), as parts, and SLOW_SUITES again
# with their full loop counts (CUBED_SLOW=1, tests/lib/require.h:
# test_slow()). A branch with a slow case of its own tags it "slow" and
# adds its suite to SLOW_SPLIT (suite:1 for one unit), or adds a suite to
# SLOW_SUITES. Units may build the 4×4 and 5×5 tables into $(TABLES) at
# once: each writes its own temporary file and renames it.
SLOW_SUITES := solve beginner
slow_env = CUBED_SLOW=1 $(call test_env,$(BUILD))
slow/part-%: $(BUILD)/cubed $(BUILD)/run_tests
	$(UNIT) $@ 'CK_INCLUDE_TAGS=slow $(call part_env,$*) $(slow_env) $(BUILD)/run_tests'
slow/full-%: $(BUILD)/cubed $(BUILD)/run_tests
	$(UNIT) $@ 'CK_EXCLUDE_TAGS=slow CK_RUN_SUITE=$* $(slow_env) $(BUILD)/run_tests'
# the browser files make test leaves out (WEB_SLOW_TESTS: two pages
# typing at once through a forced 412, the page defects' regression
# cases, the pixel checks of the 3D view, axe and the keyboard, the alg
# player: about 80 CPU-s of Chromium), a unit of their own
slow/web: $(BUILD)/cubed $(BUILD)/web/index.html tests/web/node_modules/.stamp
	$(UNIT) $@ '$(MAKE) --no-print-directory test-web WEB_TESTS="$(WEB_SLOW_TESTS)"'
.PHONY: slow/web
SLOW_UNITS := $(call split_units,$(SLOW_SPLIT),slow) \
	$(SLOW_SUITES:%=slow/full-%) slow/web
test-slow: $(BUILD)/cubed $(BUILD)/run_tests
	@mkdir -p $(TABLES)
	@rm -f $(UNITS_LOG)
	@$(MAKE) --no-print-directory -j2 -O -k $(SLOW_UNITS); \
		bash tests/units_report.sh $(UNITS_LOG)

# The store suites again on PostgreSQL (tests/lib/run_tests.c, CUBED_TEST_DB=pg):
# a private cluster for the run (tests/lib/pg_cluster.c: initdb + pg_ctl in a
# temporary directory, a free loopback port, stopped at the end), the
# sessions, live, barrage, crash and http_faults suites on it (the
# last with PostgreSQL's storage faults, tcase pg_storage), and the PostgreSQL
# engine's, two-node and fault suites (pg_nodes; pg_live, which fails node
# B's store reads through the CUBED_TEST_READ_FAULTS seam of store.c;
# pg_faults, tests/http/check_pg_faults.c: a frozen, restarted or refusing
# PostgreSQL), and a rolling restart of two nodes behind nginx and haproxy
# (nginx-light, haproxy: docker/nginx.conf, haproxy.cfg).
# CI runs it after make test.
test-pg: $(BUILD)/cubed $(BUILD)/run_tests
	@mkdir -p $(TABLES)
	CUBED_TEST_DB=pg CK_EXCLUDE_TAGS=slow CUBED_BIN=$(BUILD)/cubed CUBED_GOLDEN=tests/golden \
		CUBED_TABLES=$(TABLES) $(BUILD)/run_tests

# npm ci and Chromium must be there: the browser tests never skip
# themselves (.ci/install-deps installs chromium).
# make test's browser files: all but WEB_SLOW_TESTS, which make test-slow
# (and CI) runs (each browser test costs 2-4 CPU-s of Chromium, beside
# make test's C units on the same two cores). The race and the timed solve stay in make test (issue 64
# asks for them there).
WEB_SLOW_TESTS := tests/web/concurrent.test.mjs tests/web/defects.test.mjs \
	tests/web/pixels.test.mjs tests/web/a11y.test.mjs tests/web/alg.test.mjs
WEB_TESTS ?= $(filter-out $(WEB_SLOW_TESTS),$(wildcard tests/web/*.test.mjs))
test-web: $(BUILD)/cubed $(BUILD)/web/index.html tests/web/node_modules/.stamp
	@mkdir -p $(TABLES)
	CUBED_BIN=$(BUILD)/cubed CUBED_WEB_ROOT=$(BUILD)/web CUBED_TABLES=$(TABLES) \
		node --test --test-concurrency=1 --test-timeout=120000 $(WEB_TESTS)

screenshot: $(BUILD)/cubed $(BUILD)/web/index.html tests/web/node_modules/.stamp
	CUBED_BIN=$(BUILD)/cubed CUBED_WEB_ROOT=$(BUILD)/web CUBED_TABLES=$(TABLES) \
		CUBED_SCREENSHOT=docs/screenshot.png CUBED_RACE_SCREENSHOT=docs/race.png \
		node --test --test-concurrency=1 tests/web/solve.test.mjs tests/web/race.test.mjs

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

$(BUILD)/fuzz-replay-bins: $(FUZZ_NAMES:%=$(BUILD)/fuzz-replay/fuzz_%)
	@:
fuzz-replay-run:
	@for t in $(FUZZ_NAMES); do \
		dirs=tests/fuzz/corpus/$$t; \
		[ -d tests/fuzz/regress/$$t ] && dirs="$$dirs tests/fuzz/regress/$$t"; \
		$(BUILD)/fuzz-replay/fuzz_$$t $$dirs || exit 1; \
	done
fuzz-replay: $(BUILD)/fuzz-replay-bins
	@$(MAKE) --no-print-directory fuzz-replay-run

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

# make sanitize: the everyday suites again, built with ASan + UBSan
# (build-san/), each unit as in make test; the suites shorten their loops
# under the sanitizers (tests/lib/require.h: SANITIZED). The browser tests are
# not run again: the server paths they reach are the HTTP suites'.
SAN_BUILD := $(BUILD)-san
SAN_OPT := -O2 -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
# Two compilers at once even inside ci-extra's graph (-j2 leaves its job
# server): the sanitized units, the longest, wait for this build, and with
# one job slot (the graph's other slot busy with units) it took most of
# CI's first ten minutes.
$(SAN_BUILD)/cubed $(SAN_BUILD)/run_tests $(SAN_BUILD)/fuzz-replay-bins &: FORCE
	@$(MAKE) --no-print-directory -j2 BUILD=$(SAN_BUILD) OPT="$(SAN_OPT)" \
		$(SAN_BUILD)/cubed $(SAN_BUILD)/run_tests \
		$(FUZZ_NAMES:%=$(SAN_BUILD)/fuzz-replay/fuzz_%)
$(eval $(call everyday_units,$(SAN_BUILD),san))
sanitize:
	@mkdir -p $(TABLES)
	@rm -f $(UNITS_LOG)
	@$(MAKE) --no-print-directory -j2 -O -k san-units; \
		bash tests/units_report.sh $(UNITS_LOG)

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

# PostgreSQL's figures: acknowledged durable writes/s of one, two and three
# nodes against one SQLite node in the same run (bench/writes.sh; BENCH_BASE=
# an older cubed adds its figures beside), then cross-node live delivery
# latency (bench/pg.sh).
bench-pg: $(BUILD)/bench/watch $(BUILD)/cubed
	CUBED_BENCH_WRITES_BASE=$(BENCH_BASE) bash bench/writes.sh $(BUILD)
	CUBED_BENCH_PG_ROUNDS=0 bash bench/pg.sh $(BUILD)

# The page's figures (bench/web): time to first render and move-to-visible
# latency between two browser pages, each beside the API's round trip.
bench-web: $(BUILD)/cubed $(BUILD)/web/index.html tests/web/node_modules/.stamp
	@mkdir -p $(TABLES)
	CUBED_BIN=$(BUILD)/cubed CUBED_WEB_ROOT=$(BUILD)/web CUBED_TABLES=$(TABLES) \
		node bench/web/bench.mjs

OPTIMAL_VS_LEVELS ?= 2
OPTIMAL_VS_N ?= 30
bench-optimal: $(BUILD)/bench/bench
	@mkdir -p $(TABLES)
	bash bench/optimal_vs.sh $(BUILD) $(TABLES) "$(OPTIMAL_VS_LEVELS)" $(OPTIMAL_VS_N)
	@$(MAKE) --no-print-directory bench-twenty

# At most 20 moves: cubed's two-phase against min2phase (the build
# cubing.js ships, bench/min2phase.mjs) on the same 1,000 random states,
# three rounds back to back (bench/twenty.sh; node + npm, a minute or two)
bench-twenty: $(BUILD)/bench/bench
	bash bench/twenty.sh $(BUILD)

SOAK_S ?= 60
# then the adversarial suite (tests/http/check_http_faults.c) at HOSTILE_SCALE times
# its everyday attack sizes
HOSTILE_SCALE ?= 5
soak: $(BUILD)/cubed $(BUILD)/run_tests
	@mkdir -p $(TABLES)
	CUBED_TABLES=$(TABLES) SOAK_S=$(SOAK_S) bash bench/soak.sh $(BUILD)
	CK_RUN_SUITE=http_faults CUBED_HOSTILE_SCALE=$(HOSTILE_SCALE) CUBED_BIN=$(BUILD)/cubed \
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

# Each target a unit (make -j2 -O, two at a time).
fuzz/%: fuzz-build
	$(UNIT) $@ 'bash tests/fuzz/run.sh $(FUZZ_BUILD) $* $(FUZZ_S)'
FUZZ_UNITS := $(FUZZ_NAMES:%=fuzz/%)
fuzz: fuzz-build
	@rm -f $(UNITS_LOG)
	@$(MAKE) --no-print-directory -j2 -O -k $(FUZZ_UNITS); \
		bash tests/units_report.sh $(UNITS_LOG)

# make memcheck: the core Check suites and the store suite under valgrind
# memcheck, each a unit in one process (CK_FORK=no, so memcheck sees every
# test): any error or definite leak fails. They run make test's build
# (valgrind reads -O2 code as well) with the suites' reduced loop counts
# for slow tools (CUBED_SLOW_TOOL=1, as under ASan: tests/lib/require.h) and
# fewer random states where the suites take a count from the environment.
MEMCHECK_SUITES ?= pattern cubie solve model store beginner render index \
		   validate cube alg
VALGRIND ?= valgrind -q --error-exitcode=1 --leak-check=full \
	    --errors-for-leak-kinds=definite,indirect
vg/%: $(BUILD)/run_tests
	$(UNIT) $@ 'CK_FORK=no CK_RUN_SUITE=$* CUBED_GOLDEN=tests/golden \
		CUBED_TABLES=$(TABLES) CUBED_SLOW_TOOL=1 CUBED_MODEL_ITERS=100 \
		CUBED_SOLVE_N=50 CUBED_BEGINNER_N=50 \
		$(VALGRIND) $(BUILD)/run_tests'
MEMCHECK_UNITS := $(MEMCHECK_SUITES:%=vg/%)
memcheck: $(BUILD)/run_tests
	@mkdir -p $(TABLES)
	@rm -f $(UNITS_LOG)
	@$(MAKE) --no-print-directory -j2 -O -k $(MEMCHECK_UNITS); \
		bash tests/units_report.sh $(UNITS_LOG)

# ---- CI ---------------------------------------------------------------
# What .ci/run runs after make test: every other stage's units in one
# graph, two at a time, longest first, so both cores stay busy to the end
# and no stage waits for another to finish: the slow sweeps, the
# sanitized suites (once their build is done), memcheck, the PostgreSQL
# suites, the contract and typed-client checks, the fuzz targets and the
# container files' linters. Each stage is also its own target (make
# test-slow, make sanitize, ...), which runs the same units.
ci/pg: $(BUILD)/cubed $(BUILD)/run_tests
	$(UNIT) $@ '$(MAKE) --no-print-directory test-pg'
ci/contract: $(BUILD)/cubed $(BUILD)/web/index.html
	$(UNIT) $@ '$(MAKE) --no-print-directory contract'
ci/client-check: $(BUILD)/cubed
	$(UNIT) $@ '$(MAKE) --no-print-directory client-check'
ci/lint:
	$(UNIT) $@ '$(MAKE) --no-print-directory docker-lint'
.PHONY: ci/pg ci/contract ci/client-check ci/lint
# longest first (a day here: the sanitized reduce parts and the slow
# reduce parts are the longest units, then memcheck's pattern and cubie)
CI_UNITS := $(SAN_BUILD)/run_tests \
	$(call split_units,$(SPLIT_SUITES),san) $(SLOW_UNITS) \
	$(MEMCHECK_UNITS) ci/pg \
	$(EVERYDAY_SUITES:%=san/suite-%) san/unlisted san/fuzz-replay \
	fuzz-build $(FUZZ_UNITS) ci/contract ci/client-check ci/lint
ci-extra:
	@mkdir -p $(TABLES)
	@rm -f $(UNITS_LOG)
	@$(MAKE) --no-print-directory -j2 -O -k $(CI_UNITS); \
		bash tests/units_report.sh $(UNITS_LOG)
.PHONY: ci-extra

clean:
	rm -rf build build-san build-fuzz build-vg

# Containers. docker-smoke builds docker/Dockerfile with podman on a
# debootstrap'd bookworm base (no Docker engine or registry needed), runs
# it on a loopback port and curls it: minutes, and root (or sudo) for
# apt-get and podman, so it is not part of test or CI. docker-lint is what
# CI runs on the Dockerfile and the compose files (npx, pinned versions).
DOCKERFILELINT ?= dockerfilelint@1.8.0
DCLINT         ?= dclint@3.1.0

.PHONY: docker-smoke docker-lint

docker-smoke:
	bash docker/smoke.sh

docker-lint:
	npx -y $(DOCKERFILELINT) docker/Dockerfile
	npx -y $(DCLINT) docker/compose.yaml
	npx -y $(DCLINT) docker/compose.cluster.yaml

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

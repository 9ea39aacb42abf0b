# shellcheck shell=bash
# pg_cluster.sh — sourced by the bench scripts that run cubed on
# PostgreSQL (writes.sh, pg.sh): a private cluster for one run, what
# tests/lib/pg_cluster.c is for the tests. initdb and pg_ctl (Debian's
# newest /usr/lib/postgresql/*/bin; as the unprivileged postgres user
# when root, which initdb refuses) in a new temporary directory that holds
# the data, the log and the Unix socket; a free loopback port; trust
# authentication for one user, cubed; fsync and synchronous_commit on (the
# durable defaults: nothing is turned off for speed). Stopped by the
# postmaster's PID, which nothing else shares.
#
#   pg_cluster_start NAME  the directory ${TMPDIR:-/tmp}/NAME.XXXXXX, also
#                          the caller's scratch space: sets pg_tmp,
#                          pg_bindir, pg_port, pg_pid and pg_base
#                          (postgresql://cubed@127.0.0.1:PORT). Returns 1
#                          with the reason in pg_error (the caller prints
#                          its figures as "unavailable").
#   pg_newdb PREFIX        CREATE DATABASE PREFIX<n> (n counts up from 1):
#                          sets pg_dbname and db (its address)
#   pg_sql SQL             one statement as cubed on the postgres database;
#                          its rows unaligned on stdout
#   pg_cluster_stop        a fast shutdown (SIGINT to the postmaster), then
#                          SIGQUIT if it is still there after 30 s, and
#                          the directory removed; harmless when nothing
#                          was started
#   pg_cleanup             the caller's EXIT trap: the cubed nodes whose
#                          PIDs it added to the array pg_nodes stopped
#                          (SIGTERM, each waited for), then the cluster
# what the functions set, for the caller
# shellcheck disable=SC2034
pg_nodes=()
pg_tmp='' pg_bindir='' pg_port='' pg_pid='' pg_base='' pg_error='' pg_dbname='' pg_dbn=0

pg_as_owner() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_cluster_start() {
	pg_bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
	if [ ! -x "$pg_bindir/initdb" ]; then
		pg_error="no PostgreSQL binaries (postgresql)"
		return 1
	fi
	pg_tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") ||
		{ pg_error="mktemp failed"; return 1; }
	if [ "$(id -u)" -eq 0 ] && ! chown postgres "$pg_tmp"; then
		pg_error="no postgres user to run the cluster as (root may not)"
		return 1
	fi
	pg_as_owner "$pg_bindir/initdb" -D "$pg_tmp/data" -U cubed -A trust \
		-E UTF8 --locale=C >"$pg_tmp/initdb.log" 2>&1 ||
		{ pg_error="initdb failed: $(tail -3 "$pg_tmp/initdb.log")"; return 1; }
	pg_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])') ||
		{ pg_error="no free port (python3)"; return 1; }
	pg_as_owner "$pg_bindir/pg_ctl" -D "$pg_tmp/data" -l "$pg_tmp/data/pg.log" \
		-w -o "-p $pg_port -k $pg_tmp -c listen_addresses=127.0.0.1" \
		start >/dev/null 2>&1 ||
		{ pg_error="pg_ctl start failed: $(tail -3 "$pg_tmp/data/pg.log" 2>/dev/null)"; return 1; }
	# the postmaster's PID is the first line of its pid file
	pg_pid=$(head -1 "$pg_tmp/data/postmaster.pid" 2>/dev/null)
	case $pg_pid in
	'' | *[!0-9]*)
		# shellcheck disable=SC2034 # the caller's
		pg_error="no postmaster.pid after pg_ctl start"
		return 1
		;;
	esac
	pg_base="postgresql://cubed@127.0.0.1:$pg_port"
}

pg_sql() {
	"$pg_bindir/psql" -Atq "$pg_base/postgres" -c "$1"
}

pg_newdb() { # sets db (not in a subshell: pg_dbn must count)
	pg_dbn=$((pg_dbn + 1))
	pg_dbname=$1$pg_dbn
	pg_sql "CREATE DATABASE $pg_dbname" >/dev/null
	# shellcheck disable=SC2034 # the caller's
	db="$pg_base/$pg_dbname"
}

pg_cluster_stop() {
	# stopped while pg_ctl start was still waiting: the pid file may
	# be there already
	[ -z "$pg_pid" ] && [ -n "$pg_tmp" ] &&
		pg_pid=$(head -1 "$pg_tmp/data/postmaster.pid" 2>/dev/null)
	case $pg_pid in *[!0-9]*) pg_pid= ;; esac
	if [ -n "$pg_pid" ] && kill -0 "$pg_pid" 2>/dev/null; then
		kill -INT "$pg_pid" 2>/dev/null
		for _ in $(seq 1 300); do
			kill -0 "$pg_pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pg_pid" 2>/dev/null; then
			kill -QUIT "$pg_pid" 2>/dev/null
			for _ in $(seq 1 50); do
				kill -0 "$pg_pid" 2>/dev/null || break
				sleep 0.1
			done
		fi
	fi
	pg_pid=
	[ -n "$pg_tmp" ] && rm -rf "$pg_tmp"
	pg_tmp=
}

pg_cleanup() {
	local p
	for p in "${pg_nodes[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pg_nodes=()
	pg_cluster_stop
}

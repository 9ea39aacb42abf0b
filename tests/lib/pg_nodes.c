/* pg_nodes.c — see pg_nodes.h. */
#include "pg_nodes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pg_test_cluster(struct pg_cluster *c)
{
	memset(c, 0, sizeof *c);
	const char *dir = getenv("CUBED_TEST_PG_DIR");
	const char *url = getenv("CUBED_TEST_PG");
	ck_assert_ptr_nonnull(dir);
	ck_assert_ptr_nonnull(url);
	const char *colon = strrchr(url, ':');
	ck_assert_ptr_nonnull(colon);
	snprintf(c->dir, sizeof c->dir, "%s", dir);
	snprintf(c->url, sizeof c->url, "%s", url);
	c->port = atoi(colon + 1);
	c->running = 1;
}

void pg_admin_url(char *url, size_t cap)
{
	const char *base = getenv("CUBED_TEST_PG");
	ck_assert_ptr_nonnull(base);
	snprintf(url, cap, "%spostgres", base);
}

void pg_do(const char *url, const char *sql)
{
	char err[512];
	ck_assert_msg(pg_exec(url, sql, err, sizeof err) == 0, "%s: %s", sql,
		      err);
}

void pg_read_only(const char *dbname, int on)
{
	char admin[256], sql[300];
	pg_admin_url(admin, sizeof admin);
	snprintf(sql, sizeof sql, "ALTER DATABASE \"%s\" %s", dbname,
		 on ? "SET default_transaction_read_only = on"
		    : "RESET default_transaction_read_only");
	pg_do(admin, sql);
}

void pg_role_db(const char *tag, const char *options, char *role,
		size_t rcap, char *url, size_t ucap)
{
	char admin[256], sql[256];
	pg_admin_url(admin, sizeof admin);
	snprintf(role, rcap, "%s_%d", tag, (int)getpid());
	snprintf(sql, sizeof sql, "CREATE ROLE %s LOGIN %s", role, options);
	pg_do(admin, sql);
	snprintf(sql, sizeof sql, "CREATE DATABASE %s OWNER %s", role, role);
	pg_do(admin, sql);
	const char *base = getenv("CUBED_TEST_PG"); /* postgresql://cubed@… */
	const char *at = strchr(base, '@');
	ck_assert_ptr_nonnull(at);
	snprintf(url, ucap, "postgresql://%s%s%s", role, at, role);
}

void pg_node_start(server *n, const server *peer, const char *const *extra)
{
	const char *argv[PG_NODE_EXTRA + 5] = {"--rate-limit", "0"};
	int k = 2;
	for (int i = 0; extra && extra[i]; i++) {
		ck_assert_msg(i < PG_NODE_EXTRA, "more than %d extra options",
			      PG_NODE_EXTRA);
		argv[k++] = extra[i];
	}
	if (peer) {
		argv[k++] = "--db";
		argv[k++] = peer->db;
	}
	argv[k] = NULL;
	start_or_abort(n, NULL, argv);
}

void pg_nodes_start(server *a, server *b, const char *const *extra)
{
	pg_node_start(a, NULL, extra);
	pg_node_start(b, a, extra);
}

void pg_node_start_session(server *n, const char *const *extra, ses *s)
{
	pg_node_start(n, NULL, extra);
	json_decref(create(n->port, "{\"size\": 3}", s));
}

void pg_nodes_start_session(server *a, server *b, const char *const *extra,
			    ses *s)
{
	pg_nodes_start(a, b, extra);
	json_decref(create(a->port, "{\"size\": 3}", s));
}

void pg_nodes_stop(server *a, server *b)
{
	ck_assert_int_eq(server_stop(b, 1), 0);
	ck_assert_int_eq(server_stop(a, 1), 0);
}

int pg_server_start_at(server *n, const char *url, const char *const *extra,
		       char *err, size_t errlen)
{
	const char *args[PG_NODE_EXTRA + 3];
	int k = 0;
	for (int i = 0; extra && extra[i]; i++) {
		ck_assert_msg(i < PG_NODE_EXTRA, "more than %d extra options",
			      PG_NODE_EXTRA);
		args[k++] = extra[i];
	}
	args[k++] = "--db";
	args[k++] = url;
	args[k] = NULL;
	const char *base = getenv("CUBED_TEST_PG");
	char keep[256] = "";
	if (base)
		snprintf(keep, sizeof keep, "%s", base);
	unsetenv("CUBED_TEST_PG");
	int rc = server_start(n, NULL, args, err, errlen);
	if (base)
		setenv("CUBED_TEST_PG", keep, 1);
	return rc;
}

int pg_node_start_at(server *n, const char *url, char *err, size_t errlen)
{
	const char *args[] = {"--rate-limit", "0", NULL};
	return pg_server_start_at(n, url, args, err, errlen);
}

void pg_server_refused(const char *label, const char *url,
		       const char *const *extra, const char *want,
		       const char *want2)
{
	server n;
	char err[4096];
	double t0 = now_s();
	ck_assert_int_eq(pg_server_start_at(&n, url, extra, err, sizeof err),
			 -1);
	ck_assert_msg(now_s() - t0 < 5, "%s: took %.1f s", url, now_s() - t0);
	ck_assert_msg(strstr(err, "status 0x200"), "%s: %s", url, err);
	const char *at = strstr(err, want);
	ck_assert_msg(at && (!want2 || strstr(at, want2)), "%s: %s", url, err);
	/* the reason is on the node's one "database: " line */
	const char *line = at;
	while (line > err && line[-1] != '\n')
		line--;
	const char *tag = strstr(line, "database: ");
	ck_assert_msg(tag && tag < at, "%s: %s", url, err);
	ck_assert_msg(!strstr(err, "listening on http"), "%s: %s", url, err);
	const char *eol = strchr(tag, '\n');
	fprintf(stderr, "%s: exit 2, %.*s\n", label,
		eol ? (int)(eol - tag) : (int)strlen(tag), tag);
}

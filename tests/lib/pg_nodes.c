/* pg_nodes.c — see pg_nodes.h. */
#include "pg_nodes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int pg_node_start_at(server *n, const char *url, char *err, size_t errlen)
{
	const char *base = getenv("CUBED_TEST_PG");
	char keep[256] = "";
	if (base)
		snprintf(keep, sizeof keep, "%s", base);
	unsetenv("CUBED_TEST_PG");
	const char *args[] = {"--rate-limit", "0", "--db", url, NULL};
	int rc = server_start(n, NULL, args, err, errlen);
	if (base)
		setenv("CUBED_TEST_PG", keep, 1);
	return rc;
}

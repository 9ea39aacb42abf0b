/* store_pg_listen.h — the PostgreSQL engine's listener (store_pg_listen.c):
 * store_listen for store_pg.c's engine table, and its stop at close. */
#ifndef CUBED_STORE_PG_LISTEN_H
#define CUBED_STORE_PG_LISTEN_H

#include "store_engine.h"

struct pg;

int pg__listen(void *impl, store_notify_fn *fn, void *ctx);
void pg__unlisten(struct pg *st);

#endif

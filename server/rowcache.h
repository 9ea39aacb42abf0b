/* rowcache.h — the session writer's own copies of session rows, so that a
 * write does not read its session's row back from the database each time.
 *
 * Only the writer thread uses it (no lock), and only the writer changes
 * session rows, so a copy is as good as the row as long as the writer
 * tells the cache what its transactions do. Every row is put inside a
 * transaction (even one just read: the writer's reads see its own
 * uncommitted changes), so each belongs to the open transaction until
 * rowcache_commit; rowcache_rollback forgets the open transaction's rows
 * (they are read from the database again when next needed). Forgetting a
 * row is always safe, which is how the cache stays bounded: past its
 * limits it drops everything and starts over. The initial state (for
 * reset) is never kept.
 */
#ifndef CUBED_ROWCACHE_H
#define CUBED_ROWCACHE_H

#include <stddef.h>

#include "store.h"

struct rowcache;

/* At most max_rows rows and max_bytes bytes of their strings (a row whose
 * state and title take more than max_bytes / 64 is not kept). NULL
 * without memory. */
struct rowcache *rowcache_new(size_t max_rows, size_t max_bytes);
void rowcache_free(struct rowcache *c);

/* A copy of id's row in *out (initial NULL; store_session_free it): 1 if
 * the cache has it, 0 if not (or memory ran out: *out is then empty). */
int rowcache_get(struct rowcache *c, const char *id, struct store_session *out);

/* Keep a copy of row (its initial is ignored), as of the open
 * transaction. Memory running out only means it is not kept. */
void rowcache_put(struct rowcache *c, const struct store_session *row);

/* Forget id's row (deleted, or unknown state). */
void rowcache_remove(struct rowcache *c, const char *id);

/* The open transaction committed, or was rolled back. */
void rowcache_commit(struct rowcache *c);
void rowcache_rollback(struct rowcache *c);

/* Rows kept now (for tests). */
size_t rowcache_count(const struct rowcache *c);

#endif

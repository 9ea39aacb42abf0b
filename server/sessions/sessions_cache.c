/* sessions_cache.c — the session layer's one cache (session_layer.h):
 * an entry per session in memory, its committed state for readers and the
 * writer's working cube, bounded in entries and bytes and evicted least
 * recently used first; the immutable states readers share; and the
 * rebuilding of a state from the store (replay base, then events), with
 * the stored form of moves that replay reads (the rules read it here too).
 *
 * Lock: one mutex for the table, the LRU list and each entry's `cur`.
 * Nothing slow runs under it: loads from the store happen outside, and a
 * state is shared by reference, never copied under the lock. */
#include "session_layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------- states */

static size_t state_head(void)
{
	return (sizeof(struct session_state) + 15) & ~(size_t)15;
}

struct session_state *sstate_new(const struct store_session *m,
				 const cube_t *cube)
{
	size_t cb = cube_sizeof(m->size);
	size_t tl = m->title ? strlen(m->title) + 1 : 0;
	size_t sl = m->scramble ? strlen(m->scramble) + 1 : 0;
	if (!cb)
		return NULL;
	struct session_state *st = malloc(state_head() + cb + tl + sl);
	if (!st)
		return NULL;
	atomic_init(&st->refs, 1);
	atomic_init(&st->facelets, NULL);
	snprintf(st->id, sizeof st->id, "%s", m->id);
	st->size = m->size;
	st->version = m->version;
	st->created_at = m->created_at;
	st->updated_at = m->updated_at;
	st->is_private = m->is_private;
	st->undo_top = m->undo_top;
	st->redo_top = m->redo_top;
	st->can_undo = m->undo_top != 0;
	st->can_redo = m->redo_top != 0;
	st->cube = (cube_t *)((char *)st + state_head());
	if (cube)
		memcpy(st->cube, cube, cb);
	else
		cube_init(st->cube, m->size);
	st->title = NULL;
	if (tl) {
		st->title = (char *)st->cube + cb;
		memcpy(st->title, m->title, tl);
	}
	st->scramble = NULL;
	if (sl) {
		st->scramble = (char *)st->cube + cb + tl;
		memcpy(st->scramble, m->scramble, sl);
	}
	return st;
}

size_t sstate_bytes(int n)
{
	return state_head() + cube_sizeof(n) + 6u * (size_t)n * (size_t)n + 1;
}

struct session_state *session_state_retain(struct session_state *st)
{
	if (st)
		atomic_fetch_add_explicit(&st->refs, 1, memory_order_relaxed);
	return st;
}

void session_state_release(struct session_state *st)
{
	if (st && atomic_fetch_sub_explicit(&st->refs, 1,
					    memory_order_acq_rel) == 1) {
		free(atomic_load(&st->facelets));
		free(st);
	}
}

const cube_t *session_state_cube(const struct session_state *st)
{
	return st->cube;
}

const char *session_state_facelets(struct session_state *st)
{
	char *f = atomic_load_explicit(&st->facelets, memory_order_acquire);
	if (f)
		return f;
	size_t len = 6u * (size_t)st->size * (size_t)st->size;
	char *buf = malloc(len + 1);
	if (!buf)
		return NULL;
	cube_to_facelets(st->cube, buf);
	buf[len] = '\0';
	char *none = NULL;
	if (atomic_compare_exchange_strong(&st->facelets, &none, buf))
		return buf;
	free(buf); /* another thread formatted it first */
	return none;
}

/* ------------------------------------------------------- rebuilt from rows */

uint64_t moves_work(const alg_t *a, int n)
{
	alg_iter it;
	alg_iter_init(&it, a, 0);
	int32_t node;
	int inv;
	uint64_t w = 0;
	while (alg_iter_next(&it, &node, &inv)) {
		cube_move m = alg_node_move(&a->nodes[node], inv);
		if (m.qt % 4)
			w += 4u * (uint64_t)n * (uint64_t)(m.hi - m.lo + 1);
	}
	return w;
}

int moves_parse_stored(int n, const char *text, alg_t *a, alg_node **nodes)
{
	/* written by this server under its limits at the time: no limit
	 * now (a lowered --max-moves must not make history unreadable) */
	alg_limits lim;
	alg_limits_default(&lim);
	lim.max_moves = UINT32_MAX;
	lim.max_work = 0;
	size_t len = strlen(text), cap = alg_nodes_needed(len);
	*nodes = malloc((cap ? cap : 1) * sizeof **nodes);
	if (!*nodes)
		return SES_NOMEM;
	if (alg_parse(a, *nodes, cap, n, text, len, &lim, NULL) < 0) {
		free(*nodes);
		*nodes = NULL;
		return SES_STORE;
	}
	return SES_OK;
}

int sessions_apply_stored(cube_t *c, const char *moves)
{
	if (!*moves)
		return SES_OK;
	alg_t a;
	alg_node *nodes;
	int rc = moves_parse_stored(c->n, moves, &a, &nodes);
	if (rc != SES_OK)
		return rc;
	alg_apply(&a, c, 0);
	free(nodes);
	return SES_OK;
}

#define REPLAY_PAGE 256

int load_state(struct sessions *s, const char *id, int64_t at,
	       struct session_state **out, unsigned char *token_hash,
	       int64_t *since_events, uint64_t *since_work)
{
	struct store_session row;
	int rc = store_get_session(s->store, id, &row);
	if (rc != STORE_OK)
		return rc == STORE_NOT_FOUND ? SES_NOT_FOUND : SES_STORE;
	int64_t v = at < 0 ? row.version : at;
	int n = row.size;
	struct store_event *page = NULL;
	alg_node *nodes = NULL;
	char *text = NULL;
	cube_t *c = NULL;
	int64_t base, events = 0;
	uint64_t work = 0;
	size_t len;
	if (v > row.version) {
		rc = SES_NOT_FOUND;
		goto out;
	}
	rc = store_replay_base(s->store, id, v, &base, &text, &len);
	if (rc != STORE_OK) {
		rc = rc == STORE_NOT_FOUND ? SES_NOT_FOUND : SES_STORE;
		goto out;
	}
	c = malloc(cube_sizeof(n));
	page = malloc(REPLAY_PAGE * sizeof *page);
	if (!c || !page) {
		rc = SES_NOMEM;
		goto out;
	}
	if (cube_from_facelets(c, n, text, len, NULL) < 0) {
		rc = SES_STORE;
		goto out;
	}
	int64_t updated = row.created_at, next = base;
	/* from the base's own event (for its time) to v */
	for (int64_t after = base - 1; after < v && rc == STORE_OK;) {
		int64_t want = v - after;
		int k = store_events_after(s->store, id, after, page,
					   want < REPLAY_PAGE ? (int)want
							      : REPLAY_PAGE);
		if (k <= 0) {
			/* the session went away between the reads */
			rc = k < 0 ? STORE_ERROR : STORE_NOT_FOUND;
			break;
		}
		for (int i = 0; i < k; i++) {
			struct store_event *e = &page[i];
			if (rc == STORE_OK && e->version != next)
				rc = STORE_NOT_FOUND;
			if (rc == STORE_OK && e->version > base) {
				alg_t a;
				if (strcmp(e->kind, "reset") == 0 ||
				    moves_parse_stored(n, e->moves, &a,
						       &nodes) != SES_OK) {
					rc = STORE_ERROR;
				} else {
					alg_apply(&a, c, 0);
					work += moves_work(&a, n);
					events++;
				}
				free(nodes);
				nodes = NULL;
			}
			updated = e->created_at;
			next = e->version + 1;
			after = e->version;
			store_event_free(e);
		}
	}
	if (rc != STORE_OK) {
		if (rc == STORE_ERROR)
			fprintf(stderr, "cubed: session %s: its history could "
				"not be replayed to version %lld\n", id,
				(long long)v);
		rc = rc == STORE_NOT_FOUND ? SES_NOT_FOUND : SES_STORE;
		goto out;
	}
	struct store_session meta = row;
	meta.version = v;
	if (v != row.version) {
		/* an old version's undo and redo are not offered: they are a
		 * property of the present */
		meta.updated_at = updated;
		meta.undo_top = meta.redo_top = 0;
	}
	*out = sstate_new(&meta, c);
	rc = *out ? SES_OK : SES_NOMEM;
	if (token_hash)
		memcpy(token_hash, row.token_hash, STORE_HASH_LEN);
	if (since_events)
		*since_events = events;
	if (since_work)
		*since_work = work;
out:
	free(page);
	free(c);
	free(text);
	store_session_free(&row);
	return rc;
}

/* ------------------------------------------------------------------ table */

static size_t hash_id(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return (size_t)h;
}

int cache_init(struct cache *c, size_t max, size_t max_bytes)
{
	memset(c, 0, sizeof *c);
	c->max = max;
	c->max_bytes = max_bytes;
	c->nbuckets = max * 2 + 1;
	c->buckets = calloc(c->nbuckets, sizeof *c->buckets);
	if (!c->buckets)
		return -1;
	pthread_mutex_init(&c->lock, NULL);
	return 0;
}

static void entry_free(struct sentry *e)
{
	session_state_release(e->cur);
	session_state_release(e->w.last);
	free(e->w.cube);
	free(e);
}

static size_t entry_bytes(const struct sentry *e)
{
	return sizeof *e + sstate_bytes(e->size) +
	       (e->w.cube ? cube_sizeof(e->size) : 0);
}

static struct sentry **slot(struct cache *c, const char *id)
{
	struct sentry **p = &c->buckets[hash_id(id) % c->nbuckets];
	while (*p && strcmp((*p)->id, id) != 0)
		p = &(*p)->hnext;
	return p;
}

static void lru_unlink(struct cache *c, struct sentry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		c->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		c->tail = e->prev;
	e->prev = e->next = NULL;
}

static void lru_front(struct cache *c, struct sentry *e)
{
	e->next = c->head;
	e->prev = NULL;
	if (c->head)
		c->head->prev = e;
	c->head = e;
	if (!c->tail)
		c->tail = e;
}

/* Take e out of the table (locked); the caller frees it unless pinned. */
static void unlist(struct cache *c, struct sentry *e)
{
	struct sentry **p = slot(c, e->id);
	if (*p == e)
		*p = e->hnext;
	lru_unlink(c, e);
	e->hnext = NULL;
	e->listed = 0;
	c->count--;
	c->bytes -= e->bytes;
}

/* Past a bound, drop unpinned entries from the old end (locked). */
static void evict(struct cache *c)
{
	struct sentry *e = c->tail;
	while (e && (c->count > c->max || c->bytes > c->max_bytes)) {
		struct sentry *prev = e->prev;
		if (e->pins == 0) {
			unlist(c, e);
			entry_free(e);
		}
		e = prev;
	}
}

static void list(struct cache *c, struct sentry *e)
{
	struct sentry **p = slot(c, e->id);
	e->hnext = *p;
	*p = e;
	e->listed = 1;
	lru_front(c, e);
	c->count++;
	e->bytes = entry_bytes(e);
	c->bytes += e->bytes;
}

/* Recount e's bytes after its working cube came or went (locked). */
static void recount(struct cache *c, struct sentry *e)
{
	size_t b = entry_bytes(e);
	if (e->listed)
		c->bytes = c->bytes - e->bytes + b;
	e->bytes = b;
}

void cache_destroy(struct cache *c)
{
	while (c->head) {
		struct sentry *e = c->head;
		unlist(c, e);
		entry_free(e);
	}
	free(c->buckets);
	pthread_mutex_destroy(&c->lock);
}

static uint64_t *gen_of(struct cache *c, const char *id)
{
	return &c->gen[hash_id(id) % CACHE_GENS];
}

/* Replace e's committed state by st if st is newer (locked; st's
 * reference is the caller's, retained here when kept). */
static void install(struct sentry *e, struct session_state *st,
		    int64_t since_events, uint64_t since_work)
{
	if (e->cur && st->version <= e->cur->version)
		return;
	session_state_release(e->cur);
	e->cur = session_state_retain(st);
	e->since_events = since_events;
	e->since_work = since_work;
}

static struct sentry *entry_new(const char *id, int size,
				const unsigned char *hash)
{
	struct sentry *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	snprintf(e->id, sizeof e->id, "%s", id);
	e->size = size;
	memcpy(e->token_hash, hash, STORE_HASH_LEN);
	return e;
}

/* ---------------------------------------------------------------- readers */

int cache_read(struct sessions *s, const char *id, int validate,
	       struct session_state **out, unsigned char *token_hash)
{
	struct cache *c = &s->cache;
	pthread_mutex_lock(&c->lock);
	struct sentry *e = *slot(c, id);
	if (e) {
		struct session_state *st = session_state_retain(e->cur);
		if (token_hash)
			memcpy(token_hash, e->token_hash, STORE_HASH_LEN);
		lru_unlink(c, e);
		lru_front(c, e);
		c->hits++;
		pthread_mutex_unlock(&c->lock);
		int64_t v;
		if (!validate) {
			*out = st;
			return SES_OK;
		}
		int rc = store_session_version(s->store, id, &v);
		if (rc == STORE_OK && v == st->version) {
			*out = st;
			return SES_OK;
		}
		session_state_release(st);
		if (rc != STORE_OK)
			return rc == STORE_NOT_FOUND ? SES_NOT_FOUND
						     : SES_STORE;
		pthread_mutex_lock(&c->lock); /* another process wrote */
	} else {
		c->misses++;
	}
	uint64_t g = *gen_of(c, id);
	pthread_mutex_unlock(&c->lock);

	struct session_state *st;
	unsigned char hash[STORE_HASH_LEN];
	int64_t ev;
	uint64_t work;
	int rc = load_state(s, id, -1, &st, hash, &ev, &work);
	if (rc != SES_OK)
		return rc;
	if (token_hash)
		memcpy(token_hash, hash, STORE_HASH_LEN);
	pthread_mutex_lock(&c->lock);
	e = *slot(c, id);
	if (e) {
		install(e, st, ev, work);
	} else if (*gen_of(c, id) == g && (e = entry_new(id, st->size, hash))) {
		install(e, st, ev, work);
		list(c, e);
		evict(c);
	}
	pthread_mutex_unlock(&c->lock);
	*out = st;
	return SES_OK;
}

int cache_size(struct sessions *s, const char *id, int *size)
{
	struct cache *c = &s->cache;
	pthread_mutex_lock(&c->lock);
	struct sentry *e = *slot(c, id);
	if (e)
		*size = e->size;
	pthread_mutex_unlock(&c->lock);
	if (e)
		return SES_OK;
	struct session_meta m;
	int rc = cache_peek(s, id, &m, NULL);
	if (rc == SES_OK)
		*size = m.size;
	return rc;
}

int cache_peek(struct sessions *s, const char *id, struct session_meta *meta,
	       unsigned char *token_hash)
{
	struct cache *c = &s->cache;
	if (!s->shared) {
		pthread_mutex_lock(&c->lock);
		struct sentry *e = *slot(c, id);
		if (e) {
			if (meta) {
				meta->size = e->cur->size;
				meta->version = e->cur->version;
				meta->is_private = e->cur->is_private;
			}
			if (token_hash)
				memcpy(token_hash, e->token_hash,
				       STORE_HASH_LEN);
			pthread_mutex_unlock(&c->lock);
			return SES_OK;
		}
		pthread_mutex_unlock(&c->lock);
	}
	struct store_session row;
	int rc = store_get_session(s->store, id, &row);
	if (rc != STORE_OK)
		return rc == STORE_NOT_FOUND ? SES_NOT_FOUND : SES_STORE;
	if (meta) {
		meta->size = row.size;
		meta->version = row.version;
		meta->is_private = row.is_private;
	}
	if (token_hash)
		memcpy(token_hash, row.token_hash, STORE_HASH_LEN);
	store_session_free(&row);
	return SES_OK;
}

/* ------------------------------------------------------------- the writer */

int cache_pin(struct sessions *s, const char *id, struct sentry **out)
{
	struct cache *c = &s->cache;
	pthread_mutex_lock(&c->lock);
	struct sentry *e = *slot(c, id);
	if (e) {
		e->pins++;
		pthread_mutex_unlock(&c->lock);
		*out = e;
		return SES_OK;
	}
	pthread_mutex_unlock(&c->lock);
	/* inside the writer's transaction: the newest committed rows */
	struct session_state *st;
	unsigned char hash[STORE_HASH_LEN];
	int64_t ev;
	uint64_t work;
	int rc = load_state(s, id, -1, &st, hash, &ev, &work);
	if (rc != SES_OK)
		return rc;
	pthread_mutex_lock(&c->lock);
	e = *slot(c, id);
	if (!e && (e = entry_new(id, st->size, hash)) != NULL) {
		list(c, e);
		evict(c);
	}
	if (e) {
		install(e, st, ev, work);
		e->pins++;
	}
	pthread_mutex_unlock(&c->lock);
	session_state_release(st);
	*out = e;
	return e ? SES_OK : SES_NOMEM;
}

void cache_unpin(struct sessions *s, struct sentry *e)
{
	struct cache *c = &s->cache;
	pthread_mutex_lock(&c->lock);
	e->pins--;
	if (e->pins == 0 && !e->listed)
		entry_free(e);
	else {
		recount(c, e);
		evict(c);
	}
	pthread_mutex_unlock(&c->lock);
}

void cache_publish(struct sessions *s, struct sentry *e,
		   struct session_state *st, int64_t since_events,
		   uint64_t since_work)
{
	struct cache *c = &s->cache;
	pthread_mutex_lock(&c->lock);
	install(e, st, since_events, since_work);
	if (!e->listed) {
		struct sentry *old = *slot(c, e->id);
		if (old) /* cannot happen: ids are new; keep the table sane */
			unlist(c, old);
		if (old && old->pins == 0)
			entry_free(old);
		list(c, e);
	} else {
		lru_unlink(c, e);
		lru_front(c, e);
	}
	(*gen_of(c, e->id))++;
	recount(c, e);
	evict(c);
	pthread_mutex_unlock(&c->lock);
}

struct sentry *cache_new_entry(struct sessions *s, const char *id, int size,
			       const unsigned char *token_hash,
			       struct session_state *st)
{
	(void)s;
	struct sentry *e = entry_new(id, size, token_hash);
	if (e) {
		e->cur = session_state_retain(st);
		e->pins = 1;
	}
	return e;
}

void cache_forget(struct sessions *s, const char *id)
{
	struct cache *c = &s->cache;
	pthread_mutex_lock(&c->lock);
	struct sentry *e = *slot(c, id);
	if (e) {
		unlist(c, e);
		if (e->pins == 0)
			entry_free(e);
	}
	(*gen_of(c, id))++;
	pthread_mutex_unlock(&c->lock);
}

#define CATCH_UP_MAX 32

/* Another node moved e's session on by a few events: they are applied
 * to the committed state this node has (the row and the events after
 * it: two reads) instead of replaying from the latest snapshot (four or
 * more), when they all are moves, undos or redos (a reset needs the
 * initial state). SES_OK, an error, or 1: load it whole. The snapshot
 * counters go on from this node's: they may count past another node's
 * newer snapshot, which only makes this node's next snapshot come early. */
static int catch_up(struct sessions *s, struct sentry *e)
{
	pthread_mutex_lock(&s->cache.lock);
	struct session_state *cur = e->cur ? session_state_retain(e->cur)
					   : NULL;
	int64_t events = e->since_events;
	uint64_t work = e->since_work;
	pthread_mutex_unlock(&s->cache.lock);
	if (!cur)
		return 1;
	struct store_session row;
	int rc = store_get_session(s->store, e->id, &row);
	if (rc != STORE_OK) {
		session_state_release(cur);
		return rc == STORE_NOT_FOUND ? SES_NOT_FOUND : SES_STORE;
	}
	int64_t gap = row.version - cur->version;
	struct store_event page[CATCH_UP_MAX];
	size_t cb = cube_sizeof(cur->size);
	cube_t *c = NULL;
	int k = 0;
	rc = 1;
	if (gap > 0 && gap <= CATCH_UP_MAX && row.size == cur->size &&
	    (c = malloc(cb))) {
		memcpy(c, cur->cube, cb);
		k = store_events_after(s->store, e->id, cur->version, page,
				       (int)gap);
		if (k < 0)
			rc = SES_STORE;
		else if (k == gap)
			rc = SES_OK;
		for (int i = 0; i < k; i++) {
			alg_t a;
			alg_node *nodes = NULL;
			if (rc == SES_OK &&
			    (page[i].version != cur->version + 1 + i ||
			     strcmp(page[i].kind, "reset") == 0 ||
			     moves_parse_stored(cur->size, page[i].moves, &a,
						&nodes) != SES_OK))
				rc = 1;
			if (rc == SES_OK) {
				alg_apply(&a, c, 0);
				work += moves_work(&a, cur->size);
				events++;
			}
			free(nodes);
			store_event_free(&page[i]);
		}
	}
	if (rc == SES_OK) {
		struct session_state *st = sstate_new(&row, c);
		if (!st) {
			rc = SES_NOMEM;
		} else {
			pthread_mutex_lock(&s->cache.lock);
			install(e, st, events, work);
			pthread_mutex_unlock(&s->cache.lock);
			session_state_release(st);
		}
	}
	free(c);
	store_session_free(&row);
	session_state_release(cur);
	return rc;
}

int cache_prefetch(struct sessions *s, const char *const *ids, int n)
{
	if (!s->shared || n <= 0)
		return SES_OK;
	const char **want = malloc((size_t)n * sizeof *want);
	int64_t *after = malloc((size_t)n * sizeof *after);
	int k = 0;
	for (int i = 0; want && after && i < n; i++) {
		/* where catch_up starts (working: the writer's version if
		 * valid, else the committed one), as it will find it */
		int64_t have = -1;
		pthread_mutex_lock(&s->cache.lock);
		struct sentry *e = *slot(&s->cache, ids[i]);
		if (e && e->cur && !e->w.checked && e->w.ops == 0)
			have = e->w.valid ? e->w.version : e->cur->version;
		pthread_mutex_unlock(&s->cache.lock);
		int64_t v;
		/* the locked rows' versions: no round trip */
		if (have >= 0 &&
		    store_session_version(s->store, ids[i], &v) == STORE_OK &&
		    v > have && v - have <= CATCH_UP_MAX) {
			want[k] = ids[i];
			after[k++] = have;
		}
	}
	int rc = k ? store_prefetch(s->store, want, after, k, CATCH_UP_MAX)
		   : STORE_OK;
	free(want);
	free(after);
	/* without memory nothing is read ahead: the reloads ask */
	return rc == STORE_OK ? SES_OK : ses_of_store(rc);
}

int cache_reload(struct sessions *s, struct sentry *e)
{
	int crc = s->shared ? catch_up(s, e) : 1;
	if (crc != 1) {
		if (crc == SES_OK)
			e->w.valid = 0;
		return crc;
	}
	struct session_state *st;
	int64_t ev;
	uint64_t work;
	int rc = load_state(s, e->id, -1, &st, NULL, &ev, &work);
	if (rc != SES_OK)
		return rc;
	pthread_mutex_lock(&s->cache.lock);
	install(e, st, ev, work);
	pthread_mutex_unlock(&s->cache.lock);
	session_state_release(st);
	e->w.valid = 0;
	return SES_OK;
}

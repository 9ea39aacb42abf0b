/* timed.c — timed solves read back (sessions.h): a timed solve's row is
 * only its start; what happened after is the session's own history, so
 * the clock, the moves and the outcome are derived here from the events
 * after the start's version, replayed on the state there. Nothing of it
 * is stored twice, and every node (SQLite or PostgreSQL) derives the same
 * answer from the same rows.
 *
 * A timed solve that a later one closed can no longer change: its events
 * end at the next one's version, and its clock at the next one's start.
 * Its judgement is kept (struct timed_judged, a fixed table of
 * JUDGED_SETS × JUDGED_WAYS entries, the least recently used out), so
 * reading a session's timed solves replays only the open one's
 * events and those not judged yet: the cost of a read no longer grows
 * with the session's history. */
#include "session_layer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg.h"
#include "cube.h"

#define INSPECTION_MS 15000 /* WCA A3a1: 15 s */
#define DNF_MS 17000        /* past 17 s: DNF (A3d1) */
#define EVENT_PAGE 256
#define MAX_EVENTS 20000    /* replayed per timed solve at most */
#define JUDGED_SETS 4096    /* closed solves' judgements kept: sets of */
#define JUDGED_WAYS 4       /* four, the least recently used out (~2 MB) */

/* One closed timed solve's judgement: row `row` of session id, judged
 * with its events up to `until`. */
struct judged {
	char id[STORE_ID_MAX];
	int64_t row, until;
	uint64_t used;      /* the table's clock when last read or written */
	enum timed_status status;
	int64_t started_at, ended_at, end_version, penalty_ms, ms;
	uint64_t htm, qtm, stm;
};

struct timed_judged {
	uint64_t clock;
	struct judged set[JUDGED_SETS][JUDGED_WAYS];
};

/* The table, made at its first use (s->judged_lock held); NULL without
 * memory (then nothing is kept: every read judges again). */
static struct timed_judged *judged_table(struct sessions *s)
{
	if (!s->judged)
		s->judged = calloc(1, sizeof *s->judged);
	return s->judged;
}

static struct judged *judged_set(struct timed_judged *j, const char *id,
				 int64_t row)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = id; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	/* splitmix64's finalizer: every bit of the row moves the set */
	h ^= (uint64_t)row;
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	h ^= h >> 31;
	return j->set[h % JUDGED_SETS];
}

/* r's judgement from the table (its row filled): 1, or 0 when not kept. */
static int judged_get(struct sessions *s, const char *id,
		      struct timed_result *r, int64_t until)
{
	int hit = 0;
	pthread_mutex_lock(&s->judged_lock);
	struct timed_judged *j = judged_table(s);
	struct judged *set = j ? judged_set(j, id, r->t.id) : NULL;
	for (int w = 0; set && w < JUDGED_WAYS && !hit; w++) {
		struct judged *e = &set[w];
		if (e->used == 0 || e->row != r->t.id || e->until != until ||
		    strcmp(e->id, id) != 0)
			continue;
		hit = 1;
		e->used = ++j->clock;
		r->status = e->status;
		r->started_at = e->started_at;
		r->ended_at = e->ended_at;
		r->end_version = e->end_version;
		r->penalty_ms = e->penalty_ms;
		r->ms = e->ms;
		r->htm = e->htm;
		r->qtm = e->qtm;
		r->stm = e->stm;
	}
	pthread_mutex_unlock(&s->judged_lock);
	return hit;
}

static void judged_put(struct sessions *s, const char *id,
		       const struct timed_result *r, int64_t until)
{
	pthread_mutex_lock(&s->judged_lock);
	struct timed_judged *j = judged_table(s);
	if (!j) {
		pthread_mutex_unlock(&s->judged_lock);
		return;
	}
	struct judged *set = judged_set(j, id, r->t.id), *e = &set[0];
	for (int w = 1; w < JUDGED_WAYS; w++)
		if (set[w].used < e->used)
			e = &set[w];
	snprintf(e->id, sizeof e->id, "%s", id);
	e->row = r->t.id;
	e->until = until;
	e->used = ++j->clock;
	e->status = r->status;
	e->started_at = r->started_at;
	e->ended_at = r->ended_at;
	e->end_version = r->end_version;
	e->penalty_ms = r->penalty_ms;
	e->ms = r->ms;
	e->htm = r->htm;
	e->qtm = r->qtm;
	e->stm = r->stm;
	pthread_mutex_unlock(&s->judged_lock);
}

const char *timed_status_name(enum timed_status st)
{
	static const char *const names[] = {"inspecting", "running", "solved",
					    "dnf", "abandoned"};
	return (unsigned)st < 5 ? names[st] : "abandoned";
}

void timed_results_free(struct timed_result *r, int k)
{
	for (int i = 0; i < k; i++)
		store_timed_free(&r[i].t);
}

/* Every face one colour, whatever the orientation the cube is held in. */
static int all_faces_one(const cube_t *c, char *buf)
{
	int n = c->n;
	size_t nn = (size_t)n * (size_t)n;
	cube_to_facelets(c, buf);
	for (int f = 0; f < 6; f++)
		for (size_t i = 1; i < nn; i++)
			if (buf[f * nn + i] != buf[f * nn])
				return 0;
	return 1;
}

/* Apply one stored event's moves to c, adding their metrics; -1 if they
 * do not parse (never for rows the server wrote). */
static int apply_event(cube_t *c, const struct store_event *e,
		       struct timed_result *r)
{
	size_t len = strlen(e->moves);
	if (len == 0)
		return 0;
	size_t cap = alg_nodes_needed(len);
	alg_node *nodes = malloc((cap ? cap : 1) * sizeof *nodes);
	if (!nodes)
		return -1;
	alg_t a;
	int rc = alg_parse(&a, nodes, cap, c->n, e->moves, len, NULL, NULL);
	if (rc >= 0) {
		alg_metrics m;
		alg_metrics_of(&a, &m);
		r->htm += m.htm;
		r->qtm += m.qtm;
		r->stm += m.stm;
		rc = alg_apply(&a, c, 0);
	}
	free(nodes);
	return rc < 0 ? -1 : 0;
}

/* Judge r (its row filled) from the events after its version up to
 * `until` (the next timed solve's version, or the session's now; closed:
 * a later timed solve has started). */
static int judge(struct sessions *s, const char *id, struct timed_result *r,
		 int64_t until, int closed, int64_t now)
{
	r->status = TIMED_INSPECTING;
	r->end_version = -1;
	struct session_view v;
	int rc = sessions_get(s, id, r->t.version, &v);
	if (rc != SES_OK)
		return rc;
	int n = v.size;
	cube_t *c = malloc(cube_sizeof(n));
	char *buf = malloc(6u * (size_t)n * (size_t)n + 1);
	struct store_event *ev = calloc(EVENT_PAGE, sizeof *ev);
	if (!c || !buf || !ev ||
	    cube_from_facelets(c, n, v.facelets, strlen(v.facelets), NULL) < 0) {
		rc = SES_NOMEM;
		goto out;
	}
	int64_t after = r->t.version;
	int seen = 0, over = 0;
	while (!over && after < until && seen < MAX_EVENTS) {
		int k = store_events_after(s->store, id, after, ev, EVENT_PAGE);
		if (k < 0) {
			rc = SES_STORE;
			goto out;
		}
		if (k == 0)
			break;
		for (int i = 0; i < k; i++) {
			const struct store_event *e = &ev[i];
			after = e->version;
			if (over || e->version > until)
				continue;
			seen++;
			if (strcmp(e->kind, "reset") == 0) {
				r->status = TIMED_ABANDONED;
				over = 1;
				continue;
			}
			if (r->started_at == 0) {
				r->started_at = e->created_at;
				r->status = TIMED_RUNNING;
			}
			if (apply_event(c, e, r) < 0) {
				r->status = TIMED_ABANDONED;
				over = 1;
				continue;
			}
			if (all_faces_one(c, buf)) {
				r->status = TIMED_SOLVED;
				r->ended_at = e->created_at;
				r->end_version = e->version;
				over = 1;
			}
		}
		for (int i = 0; i < k; i++)
			store_event_free(&ev[i]);
	}
	rc = SES_OK;
	/* inspection: +2 s past 15, DNF past 17 (WCA A3) */
	int64_t inspected = (r->started_at ? r->started_at : now) -
			    r->t.inspect_at;
	if (inspected > DNF_MS && r->status != TIMED_ABANDONED)
		r->status = TIMED_DNF;
	else if (r->started_at && inspected > INSPECTION_MS)
		r->penalty_ms = 2000;
	if (r->status == TIMED_SOLVED)
		r->ms = r->ended_at - r->started_at + r->penalty_ms;
	else if ((r->status == TIMED_RUNNING || r->status == TIMED_INSPECTING) &&
		 closed)
		r->status = TIMED_ABANDONED;
out:
	free(ev);
	free(buf);
	free(c);
	session_view_free(&v);
	return rc;
}

int sessions_timed(struct sessions *s, const char *id, int64_t now,
		   struct timed_result *out, int cap)
{
	struct session_view cur;
	int rc = sessions_get(s, id, -1, &cur);
	if (rc != SES_OK)
		return rc;
	int64_t version = cur.version;
	session_view_free(&cur);
	struct store_timed *rows = calloc((size_t)(cap > 0 ? cap : 1),
					  sizeof *rows);
	if (!rows)
		return SES_NOMEM;
	int k = store_list_timed(s->store, id, -1, rows, cap);
	if (k < 0) {
		free(rows);
		return store_unavailable(s->store) ? SES_UNAVAILABLE : SES_STORE;
	}
	for (int i = 0; i < k; i++) {
		memset(&out[i], 0, sizeof out[i]);
		out[i].t = rows[i];
	}
	free(rows);
	for (int i = 0; i < k; i++) {
		int closed = i + 1 < k;
		int64_t until = closed ? out[i + 1].t.version : version;
		if (until < out[i].t.version)
			until = out[i].t.version; /* a later start at an older version */
		if (closed && judged_get(s, id, &out[i], until))
			continue;
		/* a closed solve's clock stopped when the next one began */
		int64_t at = closed && out[i + 1].t.inspect_at < now
				     ? out[i + 1].t.inspect_at
				     : now;
		rc = judge(s, id, &out[i], until, closed, at);
		if (rc != SES_OK) {
			timed_results_free(out, k);
			return rc;
		}
		if (closed)
			judged_put(s, id, &out[i], until);
	}
	return k;
}

static int64_t trimmed_average(const int64_t *x, int k)
{
	/* x: k results, INT64_MAX for a DNF */
	int64_t v[12];
	memcpy(v, x, (size_t)k * sizeof *v);
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			int64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	if (v[k - 2] == INT64_MAX)
		return TIMED_AVG_DNF; /* a DNF left after dropping the worst */
	int64_t sum = 0;
	for (int i = 1; i < k - 1; i++)
		sum += v[i];
	int64_t d = k - 2;
	return (sum + d / 2) / d;
}

void timed_stats_of(const struct timed_result *r, int k, const char *actor,
		    struct timed_stats *out)
{
	memset(out, 0, sizeof *out);
	out->best = out->mean = out->ao5 = out->ao12 = -1;
	int64_t last[12];
	int nl = 0;
	int64_t sum = 0;
	for (int i = 0; i < k; i++) {
		if (actor && strcmp(r[i].t.actor, actor) != 0)
			continue;
		if (r[i].status != TIMED_SOLVED && r[i].status != TIMED_DNF)
			continue;
		out->count++;
		int64_t x = INT64_MAX;
		if (r[i].status == TIMED_SOLVED) {
			x = r[i].ms;
			out->solved++;
			sum += x;
			if (out->best < 0 || x < out->best)
				out->best = x;
		} else {
			out->dnf++;
		}
		if (nl == 12)
			memmove(last, last + 1, 11 * sizeof *last);
		else
			nl++;
		last[nl - 1] = x;
	}
	if (out->solved)
		out->mean = (sum + out->solved / 2) / out->solved;
	if (nl >= 5)
		out->ao5 = trimmed_average(last + nl - 5, 5);
	if (nl >= 12)
		out->ao12 = trimmed_average(last, 12);
}

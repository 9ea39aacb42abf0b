/* migrate_evlog.h — migration code: the decoder of schema 4's event text,
 * which cubed before schema 5 kept in the `pending` column of a sessions
 * row and the `events` column of event_blocks. Nothing writes this format
 * any more; the upgrade (server/store/sqlite/store_sqlite_migrate.c) reads it once to
 * expand those values into event rows.
 *
 * Format: one record per event, in version order, each
 *     version US type US moves US actor US created_at US ref US link RS
 * (US = 0x1f, RS = 0x1e; numbers in decimal, without a leading zero or a
 * '+', and never "-0"). actor is "-" for none or "=" followed by the name.
 * In type, moves and actor a backslash, US and RS were written as "\\",
 * "\U" and "\R".
 */
#ifndef CUBED_MIGRATE_EVLOG_H
#define CUBED_MIGRATE_EVLOG_H

#include <stddef.h>
#include <stdint.h>

struct evlog_record {
	int64_t version;
	char type[8];
	char *moves;     /* malloc'd */
	char *actor;     /* malloc'd, NULL for none */
	int64_t created_at, ref, link;
};

/* The record at *p (p < end): fills out, moves *p past it and returns 1;
 * 0 at end; -1 if the text is not a well-formed record or memory ran out
 * (out is left empty and *p where it was). */
int evlog_next(const char **p, const char *end, struct evlog_record *out);

void evlog_record_free(struct evlog_record *r);

#endif

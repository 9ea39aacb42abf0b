/* evlog.h — a session's events as one text value: the `pending` column
 * of its sessions row and the `events` column of event_blocks (schema/004).
 * The store appends each new event to the pending text instead of
 * inserting an events row, and at the next snapshot moves the text as it
 * is into a block (store_sqlite.c says why).
 *
 * Format: one record per event, in version order, each
 *     version US type US moves US actor US created_at US ref US link RS
 * (US = 0x1f, RS = 0x1e; numbers in decimal). actor is "-" for none or
 * "=" followed by the name. In type, moves and actor a backslash, US and
 * RS are written as "\\", "\U" and "\R", so any text round-trips.
 */
#ifndef CUBED_EVLOG_H
#define CUBED_EVLOG_H

#include <stddef.h>

#include "store.h"

/* One event as a record (malloc'd, NUL-terminated, *len its length);
 * NULL if out of memory. The snapshot is not part of a record. */
char *evlog_encode(const struct store_event *e, size_t *len);

/* The record at *p (p < end): fills out (moves and actor malloc'd; free
 * with store_event_free), moves *p past it and returns 1; 0 at end; -1
 * if the text is not a well-formed record or memory ran out (out is left
 * empty). */
int evlog_next(const char **p, const char *end, struct store_event *out);

#endif

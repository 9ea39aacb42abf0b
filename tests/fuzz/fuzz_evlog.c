/* fuzz_evlog.c — libFuzzer target for the reader of schema 4's event text
 * (server/store/migrate_evlog.c), which the upgrade to schema 6 runs over every
 * pending text and event block of an old database.
 *
 * Input: any bytes, read as such a text. Laws: the reader never reads
 * past the end and stops at the first record that is not well formed;
 * every record it accepts encodes back (with the tests' writer of the old
 * format, tests/lib/evlog_writer.h) to exactly the bytes it was read from (one
 * spelling per event, so the upgrade neither loses nor invents anything),
 * and decodes again to the same event. */
#include <string.h>

#include "../lib/evlog_writer.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *p = text, *end = text + size;
	struct evlog_record e;
	int got;
	while ((got = evlog_next(&p, end, &e)) == 1) {
		LAW(p > text && p <= end, "moved to %td of %zu", p - text, size);
		size_t len;
		char *again = evlog_encode(&e, &len);
		LAW(again != NULL, "encode failed");
		const char *start = p - len;
		/* the record just read is the len bytes before p */
		LAW(start >= text && memcmp(again, start, len) == 0,
		    "record of %zu bytes re-encodes differently", len);
		const char *q = again;
		struct evlog_record f;
		LAW(evlog_next(&q, again + len, &f) == 1 && q == again + len,
		    "re-encoded record does not decode");
		LAW(f.version == e.version && strcmp(f.type, e.type) == 0 &&
			    strcmp(f.moves, e.moves) == 0 &&
			    ((!f.actor && !e.actor) ||
			     (f.actor && e.actor &&
			      strcmp(f.actor, e.actor) == 0)) &&
			    f.created_at == e.created_at && f.ref == e.ref &&
			    f.link == e.link,
		    "decode(encode(e)) differs");
		evlog_record_free(&f);
		evlog_record_free(&e);
		free(again);
	}
	LAW(got == 0 || got == -1, "evlog_next returned %d", got);
	LAW(got != 0 || p == end, "stopped at %td of %zu", p - text, size);
	return 0;
}

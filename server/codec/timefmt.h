/* timefmt.h — Unix milliseconds as RFC 3339 UTC text with milliseconds,
 * "2026-11-21T08:30:30.984Z", without the locale and time-zone machinery
 * of gmtime_r + strftime (it ran on every session reply). */
#ifndef CUBED_TIMEFMT_H
#define CUBED_TIMEFMT_H

#include <stdint.h>

#include <jansson.h>

#define TIMEFMT_LEN 24 /* characters, without the NUL */

/* Write the text and a NUL to out (at least TIMEFMT_LEN + 1 bytes) for
 * ms >= 0 (before 10000-01-01). */
void timefmt_iso_ms(int64_t ms, char *out);

/* The same text as a JSON string (NULL if memory ran out). */
json_t *timefmt_json(int64_t ms);

#endif

/* reqid.c — request ids (see reqid.h). Ids need to be unique, not secret:
 * a splitmix64 generator per thread, seeded once from getrandom, costs a
 * few nanoseconds where a getrandom call per request would cost a system
 * call, and reveals nothing about the request rate (a counter would). */
#include "reqid.h"

#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

int reqid_valid(const char *s)
{
	size_t n = 0;
	if (s == NULL)
		return 0;
	for (; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];
		if (n >= REQID_MAX)
			return 0;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || strchr("-_.:+/=@", c)))
			return 0;
	}
	return n > 0;
}

static _Thread_local uint64_t state;
static _Thread_local int seeded;

static uint64_t next(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void reqid_new(char *out)
{
	if (!seeded) {
		if (getrandom(&state, sizeof state, 0) != sizeof state) {
			/* no entropy (very early boot): still unique per
			 * thread and time */
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			state = (uint64_t)ts.tv_sec * 1000000000ull +
				(uint64_t)ts.tv_nsec + (uint64_t)(uintptr_t)&state;
		}
		seeded = 1;
	}
	static const char hex[] = "0123456789abcdef";
	uint64_t v[2] = {next(), next()};
	for (int i = 0; i < 32; i++)
		out[i] = hex[(v[i / 16] >> (60 - 4 * (i % 16))) & 15];
	out[32] = '\0';
}

static int lower_hex(const char *s, size_t n)
{
	int nonzero = 0;
	for (size_t i = 0; i < n; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
		nonzero |= s[i] != '0';
	}
	return nonzero; /* all-zero ids are invalid in trace context */
}

int reqid_trace_id(const char *tp, char *out)
{
	out[0] = '\0';
	/* version 2 hex, trace-id 32, parent-id 16, flags 2, dashes between;
	 * a later version may append more after another dash */
	if (tp == NULL || strlen(tp) < 55 || tp[2] != '-' || tp[35] != '-' ||
	    tp[52] != '-' || (tp[55] != '\0' && tp[55] != '-'))
		return -1;
	if (!((tp[0] >= '0' && tp[0] <= '9') || (tp[0] >= 'a' && tp[0] <= 'f')) ||
	    !((tp[1] >= '0' && tp[1] <= '9') || (tp[1] >= 'a' && tp[1] <= 'f')) ||
	    (tp[0] == 'f' && tp[1] == 'f') || (tp[0] == '0' && tp[1] == '0' && tp[55] != '\0'))
		return -1;
	if (!lower_hex(tp + 3, 32) || !lower_hex(tp + 36, 16))
		return -1;
	memcpy(out, tp + 3, 32);
	out[32] = '\0';
	return 0;
}

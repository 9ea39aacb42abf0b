/* timefmt.c — see timefmt.h. The date from a day count is the usual
 * era-based civil-from-days conversion (proleptic Gregorian calendar). */
#include "timefmt.h"

static void put(char *p, int v, int digits)
{
	for (int i = digits - 1; i >= 0; i--) {
		p[i] = (char)('0' + v % 10);
		v /= 10;
	}
}

void timefmt_iso_ms(int64_t ms, char *out)
{
	if (ms < 0)
		ms = 0;
	int64_t days = ms / 86400000, rem = ms % 86400000;
	/* days since 1970-01-01 to year, month, day */
	int64_t z = days + 719468;
	int64_t era = z / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int d = (int)(doy - (153 * mp + 2) / 5 + 1);
	int m = (int)(mp < 10 ? mp + 3 : mp - 9);
	int y = (int)(yoe + era * 400 + (m <= 2));
	put(out, y, 4);
	out[4] = '-';
	put(out + 5, m, 2);
	out[7] = '-';
	put(out + 8, d, 2);
	out[10] = 'T';
	put(out + 11, (int)(rem / 3600000), 2);
	out[13] = ':';
	put(out + 14, (int)(rem / 60000 % 60), 2);
	out[16] = ':';
	put(out + 17, (int)(rem / 1000 % 60), 2);
	out[19] = '.';
	put(out + 20, (int)(rem % 1000), 3);
	out[23] = 'Z';
	out[24] = '\0';
}

json_t *timefmt_json(int64_t ms)
{
	char buf[TIMEFMT_LEN + 1];
	timefmt_iso_ms(ms, buf);
	return json_stringn(buf, TIMEFMT_LEN);
}

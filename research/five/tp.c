/* tp.c — core's two-phase tables for the driver, kept in /tmp between runs */
#include <stdio.h>
#include <stdlib.h>
#include "solve.h"
#include "tp.h"

const void *tp_tables(void)
{
	size_t n = twophase_table_size();
	void *b = malloc(n);
	FILE *f = fopen("/tmp/cubed-twophase.raw", "rb");
	if (f && fread(b, 1, n, f) == n && twophase_table_check(b, n) == 0) {
		fclose(f);
		return b;
	}
	if (f)
		fclose(f);
	if (twophase_table_init(b, n, NULL, NULL) != 0)
		return NULL;
	f = fopen("/tmp/cubed-twophase.raw", "wb");
	if (f) {
		fwrite(b, 1, n, f);
		fclose(f);
	}
	return b;
}

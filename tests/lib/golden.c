/* golden.c — loader for the TAB-separated golden files (see golden.h). */
#include "golden.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *unescape(const char *s, size_t len)
{
	char *out = malloc(len + 1), *o = out;
	ck_assert_ptr_nonnull(out);
	for (size_t k = 0; k < len; k++) {
		if (s[k] == '\\' && k + 1 < len) {
			char c = s[++k];
			*o++ = c == 'n' ? '\n' : c == 't' ? '\t' : c;
		} else {
			*o++ = s[k];
		}
	}
	*o = '\0';
	return out;
}

int golden_load(const char *name, struct golden_case **cases)
{
	const char *dir = getenv("CUBED_GOLDEN");
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "tests/golden",
		 name);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open golden file %s", path);

	int count = 0, cap = 64, lineno = 0;
	struct golden_case *out = malloc(cap * sizeof *out);
	char *line = NULL;
	size_t lcap = 0;
	ssize_t got;
	while ((got = getline(&line, &lcap, f)) >= 0) {
		lineno++;
		while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
			line[--got] = '\0';
		if (got == 0 || line[0] == '#')
			continue;
		if (count == cap) {
			cap *= 2;
			out = realloc(out, cap * sizeof *out);
		}
		struct golden_case *gc = &out[count++];
		memset(gc, 0, sizeof *gc);
		gc->line = lineno;
		const char *p = line;
		for (;;) {
			const char *tab = strchr(p, '\t');
			size_t len = tab ? (size_t)(tab - p) : strlen(p);
			ck_assert_msg(gc->nfields < GOLDEN_MAX_FIELDS,
				      "%s:%d: too many fields", path, lineno);
			gc->field[gc->nfields++] = unescape(p, len);
			if (!tab)
				break;
			p = tab + 1;
		}
	}
	free(line);
	fclose(f);
	*cases = out;
	return count;
}

void golden_free(struct golden_case *cases, int count)
{
	for (int k = 0; k < count; k++)
		for (int j = 0; j < cases[k].nfields; j++)
			free(cases[k].field[j]);
	free(cases);
}

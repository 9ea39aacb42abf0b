/* errors.c — the error table (errors.def) as data, and what errors.h
 * answers about a row. Kept apart from the replies (problem.c) so that
 * any layer can ask about an error without building one. */
#include <string.h>

#include "cube.h"
#include "errors.h"
#include "pattern.h"
#include "solve.h"

static const struct row {
	const char *code;
	int status;
	const char *type;
	const char *title;
	int core;
} rows[PROBLEM_COUNT] = {
	[PROBLEM_NONE] = {"ok", 200, "ok", "OK", 0},
#define PROBLEM(id, code, status, type, title, core)                           \
	[id] = {code, status, type, title, core},
#include "errors.def"
#undef PROBLEM
};

static const struct row *row_of(enum problem id)
{
	return (unsigned)id < PROBLEM_COUNT && id != PROBLEM_NONE
		       ? &rows[id]
		       : &rows[PROBLEM_INTERNAL_ERROR];
}

int problem_status(enum problem id)
{
	return row_of(id)->status;
}

const char *problem_type(enum problem id)
{
	return row_of(id)->type;
}

const char *problem_title(enum problem id)
{
	return row_of(id)->title;
}

const char *problem_code(enum problem id)
{
	return row_of(id)->code;
}

enum problem problem_core(enum problem family, int err)
{
	const char *type = row_of(family)->type;
	for (int i = 1; i < PROBLEM_COUNT; i++)
		if (rows[i].core == err && err != 0 &&
		    strcmp(rows[i].type, type) == 0)
			return (enum problem)i;
	return family;
}


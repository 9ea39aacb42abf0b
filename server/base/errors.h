/* errors.h — the names of every error a client can receive (errors.def)
 * as one enum, and what the table says about each. No dependencies: the
 * session layer and the HTTP layer both include it. */
#ifndef CUBED_ERRORS_H
#define CUBED_ERRORS_H

/* Row 0 is no error, so that -(row) is a negative error value for layers
 * that return negative numbers on failure (sessions.h). */
enum problem {
	PROBLEM_NONE = 0,
#define PROBLEM(id, code, status, type, title, core) id,
#include "errors.def"
#undef PROBLEM
	PROBLEM_COUNT
};

#define PROBLEM_TYPE_PREFIX "urn:cubed:problem:"

/* The row's HTTP status, type ("not_found"), title and code; code is NULL
 * on the *_CORE rows (the caller's core error names it). Out-of-range ids
 * read as PROBLEM_INTERNAL_ERROR. */
int problem_status(enum problem id);
const char *problem_type(enum problem id);
const char *problem_title(enum problem id);
const char *problem_code(enum problem id);

/* The row reporting core error err (cube.h, pattern.h, solve.h) with the
 * type of row family: the row of that type whose core column is err, else
 * family itself (a *_CORE row, whose code is then the core error's name). */
enum problem problem_core(enum problem family, int err);

#endif

/* phases.h — 4×4 and 5×5 reduced by phases over their own tables
 * (four.c; five.c, five_tables.c), as the driver (reduce.c) calls them.
 * Not part of the API. */
#ifndef CUBED_REDUCE_PHASES_H
#define CUBED_REDUCE_PHASES_H

#include "internal.h"

/* four.c: 4×4 in three phases over reduce_four_tables (checked by the
 * caller: reduce__four_tables_ok). Reduces x->c (centres solved, edges
 * paired, no parity left) in the frame x->tcol; split[0..2] the phases'
 * lengths. SOLVE_ESTAGE when a phase ran out of its node budget (the
 * caller then takes the stage-by-stage path). */
int reduce__four_tables_ok(const void *tables);
int reduce__four_phases(struct ctx *x, const void *tables, int *split);
long reduce__four_census(const void *tables, int which, long counts[16]);

/* five.c: 5×5 in five phases over reduce_five_tables (checked by the
 * caller: reduce__five_tables_ok). reduce__five_reduce searches from
 * x->c (in the frame x->tcol) and keeps its reductions, shortest first,
 * in REDUCE_R_FIVE: returns how many, SOLVE_ESTAGE if a phase found
 * none within its budget, SOLVE_ENOTFOUND if the poll stopped it, 0 if
 * the caller's hurry did before there were any (the caller takes the
 * stage-by-stage path after both).
 * reduce__five_emit emits phases from..to (1 to 5) of reduction v onto
 * x->c. */
int reduce__five_tables_ok(const void *tables);
int reduce__five_reduce(struct ctx *x, const void *tables);
int reduce__five_emit(struct ctx *x, const void *tables, int v, int from,
		      int to);
long reduce__five_census(const void *tables, int which, long counts[16]);

#endif

/* plan.c — every size's and effort's plan in one place: which method each
 * stage of the reduction takes for an n×n×n cube at an effort, how many
 * variants and trials run, how wide each search is, and why (the figures
 * each rule rests on; bench/RESULTS.md and docs/solvers.md have more).
 * reduce__plan fills a struct reduce_plan (plan.h) that the driver and
 * the stages read; the variants the driver runs are the table at the end.
 *
 * The sizes at a glance, at the default effort (effort 2 and 3 move the
 * inside-out limit from 33×33 to 72×72, widen the searches up to 33×33
 * and run more variants):
 *
 *   n       centers                                  edges
 *   4, 5    staged, free turns                       beam (4×4, 5×5 also
 *                                                    by phases: four.c,
 *                                                    five.c)
 *   6-12    inside out (bars, oblique macros),       beam; from 9×9 the
 *           free turns' maps for the edge rating     half-edge moves and
 *                                                    wing commutators
 *   13-33   inside out                               beam up to 15×15, odd
 *                                                    n to 33×33, even n to
 *                                                    20×20; commutators
 *   34-128  slice phase, block commutators           commutators
 *
 * and the per-orbit 3-cycles finish the centers and the wings everywhere.
 *
 * Pure C11, no allocation, no globals but const tables.
 */
#include "plan.h"

/* The default's inside-out centers up to STAGED_MAX_N; effort 2 and 3 up
 * to STAGED_MORE_MAX_N. 72×72 at effort 2 inside out: 36,314 moves (7.0·n²,
 * the block commutators' 4 rows and 9 sweeps about 10.8·n²) in 5.1 s of
 * CPU; 76×76 5.7 s, 80×80 6.6-9.3 s, 96×96 9.6 s (65,414 moves, 7.1·n²),
 * 128×128 15.7 s (116,294, 7.1·n²): past 72 too near or past the server's
 * 10-second --max-solve-ms, which effort 2 and 3 take as their budget,
 * where a budget that runs out keeps only the default's answer, which
 * effort 2 and 3 make first from 34×34 on (default_first). Past it effort
 * 3 runs inside out as a third pass when the caller's budget holds it
 * (inside_pass, EFFORT_INSIDE, reduce_limits.budget_ms). */
static int staged_top(int effort)
{
	return effort > REDUCE_MAX_EFFORT ? REDUCE_MAX_N
	       : effort > 1              ? STAGED_MORE_MAX_N
					 : STAGED_MAX_N;
}

/* Every n up to staged_top goes inside out; at the default effort even n
 * from 22 and odd n from 27 leaner (lean): the staged steps hand over to
 * their beam after 100 nodes (st_budget) and the bars' scans weigh the
 * 65,536 macros of most pairs per move (bar_cap). Even n from 26 to 32:
 * the solver before the inside-out centers took a quarter of a second
 * there (odd n 0.7-1.2 s), and inside out as on 24×24 took 2.5 (26×26)
 * to 3.3 (32×32) times that, at or past the 3× a default solve may take,
 * so until 2026-11-27 they took the block commutators; lean, inside out
 * takes 1.9-2.3 times it, for answers 39-42 % shorter (8 states: 26×26
 * 7,667.5 → 4,503.75 moves, 32×32 11,637.9 → 7,062.6). On even n from 22
 * to 28 the time lean saves buys the last obliques' wider beam
 * (bar_beam_end), and on odd n from 27 to 33 the bars' wide beams: answers
 * about 2 % shorter (bench/RESULTS.md). But not 31×31, where the issue's
 * solver is faster than on the odd sizes around it (0.76 s against 1.1 s
 * on 29×29 and 33×33): lean with the wide beams took 2.71 times its time,
 * lean without them gave answers 1.8 % longer than neither (4 states:
 * 6,354.0 against 6,243.5 moves). */
static int lean(int n, int effort)
{
	return effort <= 1 && n != 31 && n >= (n % 2 ? 27 : 22);
}

/* Effort 2 and 3 widen the searches (more variants, wider beams) up to
 * STAGED_MAX_N; past it their time goes to the inside-out centers
 * themselves, searched as at the default effort. */
static int wide(int n, int effort)
{
	return effort > 1 && n <= STAGED_MAX_N;
}

/* Variants run (the shortest kept): 20 for 4×4, 5 for 5×5, 3 for 6×6 and
 * 7×7 (the winners spread evenly over the variants, a best of N draws, so
 * more help where each is cheap: docs/solvers.md), else 1; each effort
 * above 1 doubles them up to 33×33, and gives 8×8 to 33×33 two and
 * four. */
static int variants(int n, int effort)
{
	int v = n == 4 ? 20 : n == 5 ? 5 : n <= 7 ? 3 : 1;
	if (effort >= 2 && n <= STAGED_MAX_N)
		v = v > 1 ? v << (effort - 1) : effort == 2 ? 2 : 4;
	/* effort 3 where the block commutators solve the centers: effort
	 * 2's pass, then one with more sweeps (blk_thr_most), the shorter
	 * kept; the driver adds the inside-out pass (inside_pass) when the
	 * caller's budget holds it */
	if (effort >= 3 && n > staged_top(effort))
		v = 2;
	/* effort 2 and 3 past STAGED_MAX_N up to staged_top: the default's
	 * pass, then the inside-out one (default_first) */
	if (effort >= 2 && n > STAGED_MAX_N && n <= staged_top(effort))
		v = 2;
	return v;
}

/* How many of the centers' last step's answers are tried against the
 * edge beam (centers_staged.c, st_try; 1: the best rated taken as is).
 * Each trial is a run of the beam: where the time allows. 20 states: 4×4
 * 54.45 → 53.65 moves at 2.0 times the solver's time (2 trials),
 * 5×5 91.50 → 90.35 at 1.9, 6×6 160.35 → 155.70 at 2.4 (4 trials 155.55
 * at 2.8). Since the beam's POPCNT clone (edges_beam.h) there is time for
 * 3 on 4×4 (53.25 moves at 2.0 times) and 7×7 (with the bar trials 211.25
 * → 210.15 at 2.0; 2 trials 211.00); 10×10 534.05 at 4.3 was not worth
 * it, 8×8 and 9×9 have no time to spare (docs/solvers.md, "Edges").
 * Effort 2 and 3: 1, their variants are trials of their own. */
static int ctrials(int n, int effort)
{
	return effort <= 1 && n <= 7 ? 3 : 1;
}

/* Inside out, how many of an inner ring's last step's answers are tried
 * against the bar step after it (st_try, as the edges above; 1: the one
 * leaving the fewest obliques unpaired, as is). A bar step costs a
 * fraction of the edge beam, and the one after the trials' choice runs
 * again. 20 states, against the solver in the same run (with the
 * beam's POPCNT clone, edges_beam.h): 6×6 155.70 → 154.10 moves at 2.2
 * times its time, 7×7 212.65 → 211.25 at 1.0 (before its edge trials),
 * 8×8 320.90 → 313.10 at 2.3, 9×9 393.45 → 390.85 at 2.4; 3 and 4 trials
 * on 9×9 391.00 and 392.55 (the bar step shorter, the ring after it
 * longer); 10×10 556.15 against 542.30 (its narrower searches: no shorter
 * centers), so from 10×10 on, one. Unlike the edge beam's trials they pay
 * at effort 2 and 3 too: effort 2 6×6 154.60 → 153.65, 9×9 387.50 →
 * 383.05, for 11-13 % more time. */
static int btrials(int n)
{
	return n >= 6 && n <= 9 ? 2 : 1;
}

/* Inside out, how many of a bar step's answers (the cheapest its beam
 * met) are tried against the ring's next bar step (centers_bars.c,
 * reduce__bar_pair; 1: the cheapest, as is). The two steps the trials
 * pick are made as they ran, none run again.
 *
 * 9×9, whose ring 1 has two bar steps: 8. 20 states are too few to judge
 * them (a solve's length varies by about ±12 moves, these trials move the
 * mean by 1-4): over 300 states, 392.39 → 391.13 moves with 2 trials,
 * 390.41 with 4, 388.70 with 8. 8 took 3.0 times the solver's
 * time until the bars' scan was vectorized (bar_scan): now 2.3-2.5 (4:
 * 2.1-2.3). 16 (BAR_FIN 16) gave 386.44 against 8's 386.78 on the first
 * 100 states at 2.7 times: left out. Trials whose next step ran with a
 * narrower beam (4 and 16 states a step) gave 391.90 (8 of them) and
 * 391.33 (16). 8×8 over 300 states 318.55 → 315.31 with 8, but 313.10 →
 * 315.60 on the bench's 20 at 2.4-2.6 times its time, and 4 % under its
 * published figure already: one (bench/RESULTS.md).
 *
 * But 9×9 at the default tries 4 since the bars' blocks (centers_bars.c),
 * which made its bar steps about 9 % slower: with 8 it took 2.83-2.90
 * times the solver's time, too near 3; with 4, 0.92 of that for
 * 381.50 moves against 378.55 (the bench's first 20 states; the tests' 60
 * from seed 7806: 8 379.75, 4 381.57, 1 383.47). Effort 2 and 3 keep 8.
 *
 * At effort 2 and 3 10×10 to 12×12 try 8 too (effort 2, against the same
 * build without: 10×10 516.27 → 509.03 moves over 30 states for about
 * 30 % more time, 11×11 617.75 → 615.62 and 12×12 788.38 → 767.50 over
 * 8). At the default effort they do not fit on 10×10: 544.09 → 539.37
 * over 220 states, but at about 1.85 times the default's time, near 4
 * times the solver's.
 *
 * At the default effort 10×10 could try some in ring 1's first bar step
 * alone (bartrial_ring; its cells 4 and 5, then 3 and 6 on trial; the
 * step after, 2 and 7, runs as is). Before the half-edge pairing moves
 * (edges_halves.c) 4 took the bench's states 0-439 from 544.57 to 542.14
 * moves at 2.6-2.7 times the solver's time where one trial took
 * 2.4; with them 537.70 → 534.48, but at about 2.9-3.1 times, too near:
 * one (bench/RESULTS.md). */
static int bartrials(int n, int effort)
{
	if (n == 10 && effort <= 1)
		return 1;
	if (n == 9 && effort <= 1)
		return 4;
	return n == 9 || (effort > 1 && n >= 10 && n <= 12) ? 8 : 1;
}

/* The edge beam up to 15×15, and on odd n up to EB_MAX_N (its places need
 * 16 bits past 12×12): 13×13 to 33×33 had only the multi-orbit
 * commutators and the 3-cycles, and the beam takes their edges 318 → 189
 * moves (13×13), 420 → 292 (17×17), 765 → 622 (31×31), 791 → 704 (33×33),
 * bench/RESULTS.md. On even n from 16×16 to 20×20 with 1 state a level
 * (eb_width): the solver is fast there (16×16 about 0.2-0.3 s),
 * and 8 a level took 16×16 to 2.6-3.8 times its time; 1 takes 16×16,
 * 18×18 and 20×20 1,670.6 → 1,586.4, 2,105.5 → 2,031.0 and 2,635.5 →
 * 2,547.9 moves at 1.74, 1.99 and 2.53 times its time. 22×22 would take
 * 2.88, too near the 3 allowed. */
static int edge_beam(int n)
{
	return n <= 15 || (n % 2 ? n <= EB_MAX_N : n <= 20);
}

/* The edge beam's states a level. Past 16 (32 on 7×7 to 9×9, whose edges
 * are longer, with time to spare) a wider beam costs time and saves
 * nothing (docs/solvers.md).
 *   8×8, since the beam's S may be a block of up to six layers: 44 states
 * a level, 323.0 moves against 326.6 with 32 (20 states) for 2.45-2.7
 * times the solver's time where 32 took 2.0-2.15 (64: 322.35 at
 * 3.0-3.2).
 *   5×5 (its edges take twice 4×4's moves, and since the POPCNT clone
 * there is time: 20 states, 3 trials, 90.35 → 89.35 moves at 1.9 times
 * the solver's time; 32 a level 89.75): 44. 4×4 with 32 a level
 * and 3 trials took 52.70 moves, but at 2.7-3.0 times, too near.
 *   From 10×10 on, fewer (10×10 and 11×11: 8, from 12×12 2; 10×10 took 4
 * until the note at the end of this): a big cube's beam runs many rounds,
 * and the multi-orbit commutators after it take what a narrower one
 * leaves (8 states: 10×10 599.9 moves, 12×12 913.8; 4: 603.2 and 917.6
 * for 12–17 % less time; 12×12 with 2: 929.3 for 13 % less again), where
 * 10×10 and 12×12 had reached 3.1–3.5 times their time before the
 * inside-out centers. With the wide blocks, 8 states on 11×11 665.6 →
 * 645.75 moves at 2.1-2.3 times the solver's time; on 10×10 548.1
 * → 540.05, but at 2.6-3.0 times it (the solver took only 130-155
 * ms). Since the branchless pair count and the bars' vectorized scan
 * 10×10 takes 8 too: 50 states (20-69), 549.22 → 546.46 moves at about
 * 2.1 times (4 a level: 1.9); 16 a level 542.32, but at 3.0.
 *   Odd n from 13 to 17 (the solver takes 350-630 ms there, twice
 * its time on the even sizes near them): 8 a level, 10 states each (17×17
 * 20), against 2: 13×13 951.7 → 935.4 moves, 15×15 1,296.4 → 1,278.0,
 * 17×17 1,740.2 → 1,708.1, at 1.4-1.45 times the solver's time;
 * 16 a level no shorter on 13×13 and 15×15, 17×17 at 3.0 times. Past
 * 17×17 (odd n up to EB_MAX_N): 2 a level, as on 12×12 (8 took 19×19 and
 * 21×21 to about 2.6 times the solver's time). Even n from 16×16
 * to 20×20: 1 (edge_beam).
 *   Effort 2 and 3: 44 up to 12×12. Past it the beam keeps the default's
 * width: at 44 states a level 13×13 took 9.2 s at effort 3, 15×15 10.8
 * s, 17×17 17.6 s, 20×20 28 s, past the server's 10 s limit for a solve
 * (their other searches still widen). */
static int eb_width(int n, int effort)
{
	if (effort > 1 && n <= 12)
		return 44;
	return n == 5                   ? 44
	       : n == 8                 ? 44
	       : n >= 7 && n <= 9       ? 32
	       : n >= 16 && n % 2 == 0  ? 1
	       : n > 17                 ? 2
	       : n >= 13 && n % 2       ? 8
	       : n >= 12                ? 2
	       : n >= 10                ? 8
					: 16;
}

/* The first round's width where it differs: 9×9's first 128 levels
 * choose the most, and 44 states there (the later rounds 32) took 300
 * states 388.40 → 387.84 moves for about 13 % more time (2.3 → 2.6 times
 * the solver's); later rounds wider gave nothing (10×10: 16 in
 * the first round 544.09 → 543.21 over 220 states, but at 2.95 times, too
 * near 3; 16 in the later ones no shorter). */
static int eb_width_first(int n, int effort)
{
	return n == 9 && !(effort > 1) ? 44 : eb_width(n, effort);
}

/* The bars' beam (centers_bars.c): 16 states a step, 64 once BAR_END
 * obliques are paired. Past 12×12 a cube has many bar steps (one per ring
 * and cell), each as many as 7×7's one: narrower beams (4, then 16) keep
 * its time down (10×10 to 12×12 took them too until the staged searches'
 * budget freed the time: st_budget; effort 2 and 3 keep them wide). But
 * on odd n from 13 to 25, where the solver before the inside-out centers
 * took long enough that the wide beams fit three times its time: 13×13
 * 2.0-2.1 times it, 15×15 1.6-1.7, 17×17 2.0 (narrow 1.1-1.3), and since
 * the staged searches' smaller budget 19×19 1.35 (narrow 0.55), 21×21
 * 1.9, 23×23 2.0, 25×25 2.2-2.35, for answers 4-7 % shorter; past it
 * where the search is lean (27×27, 29×29, 33×33), whose time buys them (4
 * states: 1.84-1.97, 1.56-1.57 and 2.17-2.33 times it, for answers 2.7,
 * 2.1 and 1.9 % shorter than narrow and not lean). */
static int bars_wide(int n, int effort)
{
	return n <= 12 || wide(n, effort) ||
	       (n % 2 && n >= 13 && (n <= 25 || lean(n, effort)));
}

/* ... and where they are narrow, the last obliques' beam 32 wide up to
 * STAGED_MAX_N but on even n from 30 on (a beam of up to 32 states scans
 * half the lanes: bar_scan): 8 states, against the solver, 14×14
 * 1,336.8 → 1,270.5 moves at 1.7 times its time, 16×16 1,723.0 → 1,679.4
 * at 1.9, 18×18 2,170.5 → 2,102.8 at 2.25, 27×27 4,956.0 → 4,838.2 at
 * 1.5, 31×31 6,593.8 → 6,400.8 at 2.1, 33×33 7,486.0 → 7,209.2 at
 * 1.6-1.8; since the triples, 20×20 2,690.5 → 2,636.2 at 2.2-2.3; 22×22
 * and 24×24 would take near or past 3, but the lean search makes the time
 * for it there and on 26×26 and 28×28 (4 states, against this beam 16
 * wide and not lean: 22×22 3,268.5 → 3,189.75 moves at 0.63 of the time,
 * 24×24 3,898.25 → 3,802.5 at 0.69; against lean alone 26×26 4,577.25 →
 * 4,488.25 at 1.24); 32×32 would take 2.75 times the solver
 * (6,840.25 moves against 7,070.75). */
static int bars_mid(int n)
{
	return n <= STAGED_MAX_N && (n % 2 || n < 30);
}

/* Where the centers go inside out lean, a bar scan weighs the first
 * 65,536 macros only (of the 7×7 model's about 117,000, sorted by most
 * pairs per move). Before the blocks (80,000 macros) the cap was 49,152:
 * on 32×32 83 % of the macros the beam's answers took were among the
 * first 14,000, 94 % among the first 40,000; 32,768 made the answers 1.6 %
 * longer for 0.79 of the time, 16,384 6 %. With the blocks 49,152 left
 * out many of the long commutators the last obliques need: a 26×26's
 * beams died 16 times a solve (bar_partial; none before). 65,536, against
 * the code before the blocks (same states): 22×22 3,189.75 → 3,090.50
 * moves at 1.22 times its time, 26×26 4,488.25 → 4,314.75 at 1.02, 27×27
 * 4,611.0 → 4,361.5 at 1.12, 28×28 5,189.0 → 5,031.0 at 0.85, 32×32
 * 7,100.5 → 6,821.0 at 1.04, 33×33 6,998.25 → 6,682.5 at 1.10; 49,152
 * with the blocks 4,448.75, 5,196.0, 6,764.25 (26, 28, 33), 81,920 and
 * 131,072 4,333.5 and 4,340.0, 5,089.5 and 5,007.0 (26, 28) at 1.2-1.4
 * times. Weighing every macro only where a level of the beam found none
 * under the cap (so that no beam dies) made 33×33 longer (6,842.0 at
 * 49,152): a beam that dies leaves 2 to 4 obliques to the 3-cycles, which
 * cost less there than the commutators that finish the step. */
#define BAR_LEAN_CAP 65536

/* The staged steps' IDA* budget: ST_BUDGET nodes; from 10×10 on at the
 * default effort a sixteenth of it: half the nodes went to searches that
 * found nothing in 400,000 and left the step to the beam anyway (16×16,
 * 4 states: 2.8 of 5.4 million), and the beam's answers to the steps that
 * 25,000 nodes do not settle are about as short (8 states, 400,000 /
 * 100,000 / 25,000 nodes: 10×10 590.6 / 590.8 / 594.5 moves, 12×12 929.1
 * / 926.3 / 917.5, 33×33 7,459.8 / 7,442.8 / 7,486.0, 20×20 inside out
 * 2,669.5 / 2,676.5 / 2,690.5) for 25-45 % less time (which lets even n
 * up to 24 go inside out). Effort 2 and 3 keep it all (48×48 16,466 moves
 * against 16,631 with a quarter). And where the centers go inside out
 * lean, 100: the beam settles nearly every step (32×32, 4 states:
 * 7,027.0 moves with a sixteenth, 7,063.0 with a quarter of it, 7,049.5
 * with 1,562, 7,070.75 with 100 and the bars' cap, for 0.88, 0.80 and
 * 0.72 of the time). */
static long st_budget(int n, int effort)
{
	return lean(n, effort)		    ? 100L
	       : n >= 10 && effort <= 1 ? ST_BUDGET / 16
					: ST_BUDGET;
}

/* From 13×13 on (many rings, each searched at the default effort in
 * several steps) the pick past a step's first answer a quarter of 20,000
 * nodes: as short on 10×10 (20 states: 655.1 moves against 647.0) for
 * 11 % less time, when 10×10 was at the edge of its time; and half the
 * beam (on 8×8 and 9×9 the full beam is 3 % and 1 % shorter in all,
 * within the time a default solve may take). 10×10 to 12×12 took the
 * half beam and the narrow pick for time until the budget above freed
 * it: with the full ones and the bars' wide beams they are 5-7 % shorter
 * (20 states: 10×10 615.35 → 573.9 moves; 8: 11×11 731.0 → 691.25, 12×12
 * 917.5 → 869.9) at 1.4-2.3 times the solver's time; 14×14 would
 * be 7 % shorter at 2.8-2.9 times, 16×16 6 % at 3.2. Effort 2 and 3
 * search wide up to 33×33. */
static int st_narrow(int n, int effort)
{
	return n >= 13 && !wide(n, effort);
}

/* The block commutators' most rows and sweeps' thresholds, by effort
 * (past 72×72 efforts 2 and 3 come here too). The default: 2 rows
 * (128×128 0.8 % longer than with 4, in half the time: within three times
 * the time of the solver before the block commutators) and 6 sweeps (12,
 * 8, 6, 5, 4, 3: 0.3-1.6 % shorter than 10, 6, 4, 3 for 0-17 % more time
 * since the faster search, 128×128 −1.6 % for +13 %; 16, 12, 10, 8, 7, 6,
 * 5, 4, 3 −2.0 % for +39 %: bench/RESULTS.md). Effort 2: 4 rows and 9
 * sweeps, 128×128 3.2 % shorter than the default with 4 sweeps (1.6 %
 * shorter than with 6) in about twice its time. Effort 3: that pass, then
 * one with the cube turned whole and 14 sweeps, the shorter kept (the
 * sweeps are greedy: on 96×96 the 14 alone gave 0.5 % more than the 9; 8
 * rows for them: 0.3 % shorter on 128×128 for 1.6 times the time;
 * bench/RESULTS.md). */
static const int blk_thr[] = {12, 8, 6, 5, 4, 3, 0};
static const int blk_thr_more[] = {16, 12, 10, 8, 7, 6, 5, 4, 3, 0};
static const int blk_thr_most[] = {24, 20, 16, 14, 12, 11, 10, 9,
				   8,  7,  6,  5,  4,  3,  0};

/* The 3×3 stage's free turns (reduced3x3.c) in every 3×3 a variant tries
 * where at most this many variants run (5×5: 89.35 → 88.90 moves for
 * 9.5 % more time; 4×4's 20: 25 % more, and no shorter than in the
 * winner's last search alone), and not where the block commutators solve
 * the centers: there an answer is thousands of moves and the free turns'
 * four more 3×3 searches took 15-40 ms for a third of a move (alternating
 * runs against the build with them, 6 states: 34×34 105 → 65 ms,
 * 13,135.67 → 13,136.00 moves; 48×48 129 → 94 ms, 26,192.83 → 26,193.00;
 * 64×64 132 → 118 ms, +0.17). */
#define FREE3_VARIANTS 5

/* Effort 2 and 3 from REDUCE_EASE_MIN_N to STAGED_MAX_N solve as the
 * default does with wider searches (wide, the trials), their first
 * variant about twice the default's time: on a slow or busy machine past
 * the caller's budget, which would leave no answer where the default
 * gives one. There the caller's hurry may turn a pass to the default
 * effort (reduce__ease, internal.h). Below REDUCE_EASE_MIN_N a variant
 * takes about the default's time (4×4 and 5×5 have hurries of their
 * own). */
_Static_assert(REDUCE_EASE_MAX_N == STAGED_MAX_N,
	       "effort 2 eases where it takes the default's stages");

struct reduce_plan reduce__plan(int n, int effort)
{
	struct reduce_plan p = {.n = n, .effort = effort < 1 ? 1 : effort};
	int e = p.effort, inside = n <= staged_top(e);

	/* the passes */
	p.variants = variants(n, e);
	p.default_first = e >= 2 && n > STAGED_MAX_N && inside;
	p.inside_pass = e >= 3 && !inside;
	/* the three-phase 4×4's frames, the shortest kept: one at the
	 * default, for time (20 states: two frames 42.6 moves against
	 * 43.0, at twice the time) */
	p.four_frames = e >= 3 ? 4 : e == 2 ? 2 : 1;
	p.eases = e > 1 && n >= REDUCE_EASE_MIN_N && n <= STAGED_MAX_N;
	/* many variants try many endings already: 4×4 with 16 took 1.6
	 * times the time for 0.35 moves, with 4 1.2 times for the same */
	p.ends = p.variants > 3 ? REDUCE_ENDS_MANY : REDUCE_ENDS;
	p.polls = TWOPHASE_POLLS * e;
	p.free3 = p.variants <= FREE3_VARIANTS && inside;

	/* the centers: up to staged_top the staged search, past 5×5 inside
	 * out with the bars and the oblique macros, up to FREE_MAX_N the
	 * free turns; past it the slice phase and block commutators. The
	 * edge rating, with the free turns' place maps it reads: 6×6 and
	 * 8×8 to 12×12 joined 4×4, 5×5 and 7×7 when their centers came to
	 * end on the outer ring's last step (20 states: 6×6 161.70 →
	 * 160.35 moves, 9×9 395.05 → 393.45, 10×10 547.95 → 542.30, same
	 * time) */
	p.staged = inside;
	p.inside = n >= 6 && inside;
	p.free_phase = n <= FREE_MAX_N;
	p.edge_rate = n <= FREE_MAX_N;
	/* judging the best first steps by the step after them multiplies
	 * the work by 7, which pays on 4×4 alone (docs/solvers.md) */
	p.free_look = n <= 4;
	/* blocks widen the search a lot and pay up to 9×9, commutators
	 * too (past it they cost more time than they save moves); on 4×4
	 * a block of three is a rotation and a layer, and leaving those
	 * out gives the same lengths in less time */
	p.free_comms = n <= 9;
	p.free_width = n == 4 ? 2 : n <= 7 ? 3 : n <= 9 ? 2 : 1;
	p.obliques = n >= 6 && inside;
	/* the oblique macros' greedy a beam up to 7×7 */
	p.om_beam = n <= 7;
	p.blocks = !inside;
	p.blk_rows = e > 1 ? 4 : 2;
	p.blk_thr = e > 1 ? blk_thr_more : blk_thr;
	p.blk_thr_most = e == 3 && !inside ? blk_thr_most : NULL;

	p.st_budget = st_budget(n, e);
	p.st_pick = st_narrow(n, e) ? 20000L / 4 : 20000L;
	p.st_beam = n < 13 || wide(n, e) ? ST_BEAM : ST_BEAM / 2;

	p.bar_beam = bars_wide(n, e) ? 16 : 4;
	p.bar_beam_end = bars_wide(n, e) ? 64 : bars_mid(n) ? 32 : 16;
	p.bar_cap = lean(n, e) ? BAR_LEAN_CAP : 0;
	/* from 11×11 a bar step also steers the next step's obliques (the
	 * twins: centers_bars.c, bar_twin) */
	p.bar_twins = n >= 11;

	p.ctrials = ctrials(n, e);
	p.btrials = btrials(n);
	p.bartrials = bartrials(n, e);
	p.bartrial_ring = n == 10 && e <= 1 ? 1 : 0;

	p.edge_beam = edge_beam(n);
	p.eb_width = eb_width(n, e);
	p.eb_width_first = eb_width_first(n, e);
	/* from 9×9, wherever the beam runs, its leftovers go to the
	 * half-edge pairing moves first */
	p.edge_halves = p.edge_beam && n >= 9;
	/* from 9×9 the edge beam leaves wings the commutators pair for
	 * less than the 3-cycles (9×9 to 12×12 4 states each, edges 169.3
	 * -> 135.5, 232.8 -> 169.0, 276.3 -> 193.0, 368.3 -> 247.5 moves;
	 * up to 8×8 the same answers) */
	p.wing_comms = n >= 9;
	/* even n whose voted edge set needs the PLL parity: the set that
	 * needs none paired on trial, up to staged_top (8×8 to 24×24
	 * 0–1.2 % shorter, docs/solvers.md, Parities); past it the trial
	 * would add a quarter to the block commutators' time */
	p.edges_alt = n % 2 == 0 && inside;
	return p;
}

_Static_assert(PLAN_EB_WIDTH_MAX >= 44, "eb_width's widest");
_Static_assert(PLAN_BAR_BEAM_MAX >= 64, "bar_beam_end's widest");

/* The variants, in the order they run: threshold of the free center
 * phase in stickers per move (num, den), the frame's rank on even n, the
 * whole-cube rotation; the first is the one measured best alone, and
 * each row after it was the one that, added to those above it, most
 * shortened the best of them (docs/solvers.md). Past the table each
 * threshold with each frame rank and turn, in an order that meets them
 * all. */
static const struct reduce_variant variant_table[24] = {
	{1, 3, 0, 0}, {1, 2, 1, 5}, {2, 7, 2, 10}, {2, 5, 3, 15},
	{1, 3, 0, 7}, {1, 3, 1, 2}, {1, 3, 2, 13}, {1, 3, 3, 20},
	{1, 3, 4, 0}, {1, 2, 0, 9}, {1, 3, 5, 18}, {2, 7, 1, 22},
	{1, 3, 0, 4}, {1, 2, 1, 11}, {2, 7, 0, 17}, {1, 3, 2, 3},
	{2, 5, 1, 21}, {1, 3, 0, 14}, {1, 2, 3, 8}, {1, 3, 6, 1},
	{2, 7, 0, 19}, {1, 3, 4, 12}, {1, 2, 2, 23}, {1, 3, 1, 6},
};

struct reduce_variant reduce__variant(int v)
{
	static const int thr[4][2] = {{1, 3}, {1, 2}, {2, 7}, {2, 5}};
	int nt = (int)(sizeof variant_table / sizeof *variant_table);
	if (v >= 0 && v < nt)
		return variant_table[v];
	struct reduce_variant r = {thr[v % 4][0], thr[v % 4][1], v / 4 % 6,
				   (v * 7 + v / 24) % 24};
	return r;
}

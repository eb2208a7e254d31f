/* The CDCL kernel of satdoku's cdcl solver: its state and the calls its Python binding makes
 * (kernel.c is the search, preprocessing and proofs; _cdcl.c the CPython binding, which parses
 * arguments, holds the GIL and turns the codes returned here into Python values or errors).
 * Nothing here knows Python: a Kernel is a plain struct, zeroed before kernel_init.
 * Readable twin of the whole kernel: satdoku/solvers/cdcl/readable.py (and simplify.py).
 * tests/test_cdcl.py checks the enum of P_* names and the #define codes below against
 * cdcl/params.py, the one home of their values. */
#ifndef SATDOKU_CDCL_KERNEL_H
#define SATDOKU_CDCL_KERNEL_H

#include <stdint.h>
#include <stdio.h>

/* --- constants (= cdcl/readable.py) -------------------------------------------------------- */
#define LEARNT 1
#define DELETED 2
#define HDR 3 /* clause header words: size, flags, lbd */
#define UNKNOWN 0
#define SAT 10
#define UNSAT 20
#define UNSAT_ASSUMED 30
#define RESTART_NONE 0
#define RESTART_LUBY 1
#define RESTART_GLUCOSE 2
#define RESTART_MIXED 3
#define PROOF_NONE 0
#define PROOF_DRAT 1
#define PROOF_LRAT 2
#define NO_REASON (-1)
#define NO_CONFLICT (-1)
#define BINARY_CONFLICT (-2)
#define OUT_OF_MEMORY (-3)

/* tunable policy parameters, in the order of cdcl/params.py's table (P_* there); their values
 * (defaults included) come from Python at construction: cdcl/params.py is their one source */
enum {
    P_LUBY_UNIT, P_LBDQ_LEN, P_GLUCOSE_K_PCT, P_BLOCK_R_PCT, P_TRAILQ_LEN, P_BLOCK_MIN,
    P_REDUCE_FIRST, P_REDUCE_INC, P_KEEP_LBD, P_SWITCH, P_SIMPLIFY, P_ELIM_CLAUSE_LIM,
    P_ELIM_GROW, P_SUBSUME_LIM, P_SIMP_EFFORT, P_SIMP_DELAY, P_REDUCE_PER_VAR,
    P_ELIM_LITS_PCT, P_SIZE
};

#define CLOCK_EVERY 20000 /* watch visits between two looks at the clock (well under 1 ms) */
#define LOAD_CHUNK 65536  /* clauses loaded between two looks at the clock */
#define MAX_WINDOW 65536

typedef struct {
    int32_t *data;
    int32_t len; /* entries in use (an entry is 2 ints for watches, 1 for implications) */
    int32_t cap; /* entries allocated */
} Vec;

/* A growable list of ints (LRAT hint chains and their stacks). */
typedef struct {
    int32_t *a;
    int64_t n, cap;
} IVec;

typedef struct {
    int32_t n;
    int error;  /* an allocation failed: the solver is unusable */
    int busy;   /* a search runs (without the GIL): other calls are refused */
    int status; /* UNSAT once the formula is refuted at level 0, else UNKNOWN */
    int64_t P[P_SIZE];
    /* assignment */
    int8_t *lval;
    int32_t *level, *reason, *trail, *trail_lim;
    int64_t trail_size, qhead, dl;
    int8_t *phase;
    int8_t *model; /* the assignment of the last SAT answer (model() returns it) */
    int has_model;
    /* VSIDS */
    double *act;
    double var_inc, decay;
    int32_t *heap, *hpos;
    int64_t heap_size;
    /* clauses: long ones (3+ literals) in the arena, watched; binary ones only as
     * implications: bins[l] lists the literals that must be true once l is false */
    int32_t *arena;
    int64_t atop, acap, wasted;
    Vec *watches, *bins;
    int32_t *learnts;
    int64_t nlearnts, learnts_cap;
    int32_t confl_a, confl_b; /* the binary clause of a BINARY_CONFLICT */
    /* conflict analysis */
    int8_t *seen;
    int32_t *out, *stack, *toclear;
    int64_t *stamp;
    int64_t stamp_mark;
    /* loading */
    int64_t *mark;
    int64_t loaded;
    int32_t *tmp;
    int empty_logged;
    /* proof: DRAT: tag (1 add, 2 delete), size, DIMACS literals ...; LRAT: 1, id, size,
     * literals, hint count, hints ... (add) or 2, id, size, literals ... (delete) */
    int proof_on; /* PROOF_NONE, PROOF_DRAT or PROOF_LRAT */
    int32_t *proof;
    int64_t ptop, pcap;
    int64_t last_id;     /* the id of the last clause loaded, learnt or derived */
    int32_t refute[2];   /* LRAT hints of an empty clause found while loading */
    int nrefute;
    /* LRAT only */
    int32_t *unit_id;    /* per variable: a unit clause of its level-0 literal, 0: none */
    int32_t *cid;        /* per arena offset of a long clause: its id */
    int64_t cidcap;
    Vec *binid;          /* per literal: the ids of the binary clauses of bins[lit], in order */
    int64_t *lmark;      /* per variable: hint chains (stamps above lmark_base) */
    int64_t lmark_base;
    IVec lstack, ustack, hunits, hchain, hbuf;
    /* policies */
    int restart_mode;
    int64_t reduce_first, reduce_inc; /* the reduction schedule (P_REDUCE_PER_VAR applied) */
    int64_t next_reduce, luby_i, since_restart;
    int stable;
    int64_t switch_at, switches;
    int64_t lbd_sum; /* over all conflicts */
    int64_t *lbdq, lbdq_n, lbdq_head, lbdq_sum; /* recent LBDs */
    int64_t *trailq, trailq_n, trailq_head, trailq_sum; /* recent trail sizes */
    /* mixed restarts: focused (glucose) and stable (Luby) phases alternate */
    /* preprocessing: done once, after P_SIMP_DELAY conflicts; frozen variables are kept */
    int simplified;
    int8_t *frozen, *elim;
    int32_t *elimclauses; /* MiniSat's elimclauses: clause (eliminated literal first), size */
    int64_t etop, ecap;
    /* statistics */
    int64_t conflicts, decisions, props, restarts, learnt, max_level, deleted, reduces;
    int64_t collects, minimised, blocked;
    int64_t s_eliminated, s_subsumed, s_strengthened, s_resolvents;
    /* clock */
    double deadline; /* CLOCK_MONOTONIC seconds; <0: none */
    int64_t ticks, next_check;
    volatile int stop; /* set by interrupt() from another thread: end the search now */
} Kernel;

/* --- loading --------------------------------------------------------------------------------- */
/* Loading works in two passes: clauses are normalised into the arena (long ones) and a staging
 * list of pairs (binary ones), counting per literal; then every list is sized once and filled
 * in input order (what attaching clause by clause would give, without the reallocations). */
typedef struct {
    int32_t *pairs;
    int64_t npairs, cap;
    int64_t first_cref; /* long clauses from here on are not attached yet */
} Staging;

/* --- what the binding calls ------------------------------------------------------------------ */
/* CLOCK_MONOTONIC seconds (the clock of Python's time.perf_counter). */
double now_seconds(void);

/* Room for need items of item bytes at *ptr (capacity *cap, at least doubled): 0, or -1. */
int kernel_grow(void **ptr, int64_t *cap, int64_t need, size_t item);

/* Allocate the state of a kernel over num_vars variables (k zeroed, k->P set and checked by
 * the caller). 0, or -1 out of memory (kernel_free releases what was allocated). */
int kernel_init(Kernel *k, int32_t num_vars, int restart_mode, int negative, double decay,
                int proof);
void kernel_free(Kernel *k);

/* The deadline of the next load or solve: none, or seconds from now (<= 0: now). */
void kernel_no_deadline(Kernel *k);
void kernel_set_deadline(Kernel *k, double seconds);
int kernel_expired(const Kernel *k);

/* Loading (= load of cdcl/readable.py): kernel_begin_load goes back to level 0 with qhead 0
 * (every clause is propagated again against the new ones); then one kernel_load_clause per
 * clause (DIMACS literals, already range-checked; 0 or -1 out of memory), kernel_attach_staged
 * once the clauses are in (0 or -1), and kernel_end_load always last (frees the staging; on a
 * formula refuted while loading, logs the empty clause once; 0 or -1 out of memory). */
void kernel_begin_load(Kernel *k, Staging *st);
int kernel_load_clause(Kernel *k, Staging *st, const int32_t *dimacs, int64_t count);
int kernel_attach_staged(Kernel *k, Staging *st);
int kernel_end_load(Kernel *k, Staging *st, int stopped);

/* One search call (= solve of cdcl/readable.py) from level 0 under the assumptions (internal
 * literals): SAT (the model kept in k->model, eliminated variables rebuilt), UNSAT,
 * UNSAT_ASSUMED, UNKNOWN (conflict budget, deadline or interrupt), or -1 out of memory. */
int kernel_solve(Kernel *k, const int32_t *assumps, int64_t nassumps, int64_t max_conflicts);

/* Propagation alone (= propagate_units of cdcl/readable.py), for every 0-terminated group of
 * DIMACS literals in lits[0..count): out[g] -1 refuted or the failed literals found, vals
 * (report per group) the values of variables 1..report. 0, or -1 out of memory. */
int kernel_propagate_groups(Kernel *k, const int32_t *lits, int64_t count, int probe,
                            int32_t report, int32_t *out, int8_t *vals);

/* The proof log as text (DRUP, or LRAT lines), or with binary set in the binary format of
 * the same steps (drat-trim's binary DRAT; binary LRAT as cadical --lrat --binary writes it):
 * 0, or -1 a write failed (errno says why). */
int kernel_write_proof(const Kernel *k, FILE *fh, int binary);

#endif

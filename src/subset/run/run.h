/*-------------------------------------------------------------------------
 *
 * run/run.h
 *	  The executor's state, shared by the files that run a subset plan
 *	  (subset.h has its interface):
 *
 *	run/executor.c			the driver: subset_run_prepare's steps in order,
 *							the notices, the queries of the files, and which
 *							errors are withheld
 *	run/locks.c		privileges and locks, and the check that no
 *							table changed after the snapshot
 *	run/sets.c		the row sets: tuplestores registered as
 *							ephemeral relations, batches, or CTEs (Citus)
 *	run/sequences.c	the sequences a file sets again, as data
 *	run/depths.c		each row's depth in a self-referencing table
 *	run/whole.c		the tables read whole, and the sets then read
 *
 * Not part of the extension's interface outside the executor.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_SUBSET_RUN_H
#define EXWIW_SUBSET_RUN_H

#include "subset/subset.h"

#include "executor/spi.h"
#include "utils/queryenvironment.h"

/*
 * A file whose rows' set holds at most this many rows reads them back by
 * ctid (SubsetFile.ctid_query): a TID scan per row, then a sort, which
 * beats a second probe of the key's index for a tenant's rows and loses to
 * a merge join on it for most of a table (bench/README.md).
 */
#define SUBSET_CTID_MAX_ROWS 50000

struct SubsetRun
{
	const char *funcname;
	SubsetPlan *plan;
	MemoryContext cxt;
	EphemeralNamedRelation *enrs;	/* per set */
	bool		inline_sets;	/* Citus: sets as CTEs of each query */
	List	  **sequences;		/* per file: ExwiwSequenceState * */
	ArrayType **depths;			/* per file: row depths, or NULL */
	bool		any_mask;		/* a table of the config has masked columns */
	bool	   *whole;			/* per table: read whole (run/whole.c) */
};

/* How an error of one query is withheld (see withhold_for). */
typedef struct Withhold
{
	bool		on;				/* withhold the message */
	const char *table;
	const char *masked;			/* its masked columns, or NULL */
	const char *keys;			/* the config keys the query evaluates */
} Withhold;

/* run/executor.c */
extern Withhold run_withhold_for(SubsetRun *run, int ti, bool fragment,
								 bool raw_sql);
extern Withhold run_withhold_for_query(SubsetRun *run, int ti, bool fragment,
									   bool raw_sql, List *deps);

/* run/locks.c */
extern void run_lock_tables(SubsetRun *run);

/* run/sets.c */
extern void run_compute_set(SubsetRun *run, int i, bool whole);
extern void run_add_deps(SubsetPlan *plan, int i, bool *need);
extern int	run_execute_withheld(SPIPlanPtr plan, const SPIExecuteOptions *opts,
								 Withhold w, List *prefetch, const char *sql);
extern int	run_query(const char *sql, Withhold w);
extern SPIPlanPtr run_walk_plan(SPIPlanPtr plan, const char *sql, int nargs,
								Oid *argtypes);
extern char *run_with_sets(SubsetRun *run, const char *query, List *deps);
extern bool run_set_is_large(SubsetRun *run, int setno, Oid relid);
extern List *run_enr_list(SubsetRun *run, List *deps);
extern float4 run_catalog_rows(Oid relid);

/* run/whole.c */
extern void run_find_whole(SubsetRun *run);
extern bool run_set_whole(SubsetRun *run, int i);
extern bool *run_sets_read(SubsetRun *run);

/* run/sequences.c */
extern List *run_file_sequences(SubsetRun *run, SubsetFile *f);
extern List *run_copy_sequences(List *seqs);

/* run/depths.c */
extern ArrayType *run_file_depths(SubsetRun *run, SubsetFile *f, int fset);

#endif							/* EXWIW_SUBSET_RUN_H */

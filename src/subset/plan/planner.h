/*-------------------------------------------------------------------------
 *
 * plan/planner.h
 *	  The planner's working state, shared by the files that make a plan,
 *	  in two phases: decide (no SQL), then write the SQL of the decisions.
 *
 *	plan/request.c		the request: arguments, config, ids by space;
 *						calls the driver
 *	plan/build.c		the driver (plan_build_once: the phases in order),
 *						the files' queries, the cycles' fix-up files
 *	decide:
 *	plan/decide.c		which rule gives each table its own rows (its
 *						"seed"): the target, the scope column, belongs_to
 *						paths, polymorphic and further arms, reverse scopes,
 *						the tables whose rows all are somebody's, the
 *						fallbacks and the cascades turned off
 *	plan/closure.c	(planner_closure_prepare) which sets of all rows
 *						are read, and their columns
 *	write:
 *	plan/seeds.c		the seeds' SQL and the sets of seed keys, of the
 *						rows of nobody's (exwiw_u), of descendants
 *	plan/closure.c	the rows exported rows reference, and the sets of
 *						all rows
 *	plan/whole.c		which tables may be read whole (every row
 *						exported), and their sets' SQL for then
 *	plan/select.c		the select list: columns and masks
 *	plan/delete.c		the delete files' statements
 *	plan/order.c		the processing order; plan/file_name.c the names
 *	plan/planner.c		the helpers of this struct every phase calls
 *						(sets, aliases, columns, edges, the path walked):
 *						below every phase, it calls none
 *
 * Each file calls only the phases before it and planner.c, never one
 * after it, with one exception (doc/architecture.md, "Known circles"):
 * seeds.c's undecided sets read a parent's set of all rows
 * (planner_fset), which closure.c builds on demand from the children's
 * seeds.
 *
 * Not part of the extension's interface outside the planner.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_SUBSET_PLANNER_H
#define EXWIW_SUBSET_PLANNER_H

#include "subset/subset.h"

/* How a table's own rows (its seed) are chosen; see plan/decide.c. */
typedef enum SeedKind
{
	SEED_NONE,					/* none: only rows others reference */
	SEED_TARGET,				/* the target's rows, by key */
	SEED_DIRECT,				/* scope-column mode: its scope column */
	SEED_PATH,					/* belongs_to path to the target or scope */
	SEED_REVERSE,				/* reverse_scope: values its arms hold */
	SEED_CASCADE,				/* the one constrained parent's rows */
	SEED_UNRELATED,				/* not connected to the target: all rows */
	SEED_EXEMPT,				/* scope_exempt or Rails-managed: all rows */
	SEED_DECIDED,				/* "export": "all" and nothing ties it */
	SEED_FALLBACK				/* no rule applies: all rows (WARNING) */
} SeedKind;

/* Does the seed tie the rows to the target (and so constrain others)? */
#define SeedConstrains(k) \
	((k) == SEED_TARGET || (k) == SEED_DIRECT || (k) == SEED_PATH || \
	 (k) == SEED_REVERSE || (k) == SEED_CASCADE)

/*
 * PlannerRel
 *		What the planner knows and has decided about one table of the
 *		config (Planner.rel[t], t the config's table number), as
 *		postgres_fdw keeps a PgFdwRelationInfo per relation.  The graph
 *		facts come first (plan/decide.c's walk), then the seed, the closure
 *		and the sets, then the recursion guards of the builders.
 */
typedef struct PlannerRel
{
	/* the graph: filled by planner_seeds */
	List	   *out_edges;		/* edges whose child it is, in edge order */
	List	   *in_edges;		/* edges whose parent it is, in edge order */
	int			pos;			/* position in processing order, or -1 */
	int			dist;			/* belongs_to distance from a seed source */
	int			path;			/* its path edge, or -1 */
	bool		comp;			/* connected to a seed source */
	bool		may;			/* can have rows */
	bool		selfref;		/* has a (non-broken) self-reference */

	/* the seed: the rows the table contributes on its own */
	SeedKind	kind;
	List	   *seed_edges;		/* PATH/CASCADE: edge indexes (arms) */
	bool		late;			/* some arms read a parent's referenced rows
								 * (add_late_arms) */
	List	   *claims;			/* delegated edges to it: the rows its
								 * children's rows own (decide_claims) */
	int			all_arm;		/* the arm that decides every row, or -1 */
	List	   *shadowed;		/* edges to tied parents after it: no arms */
	List	   *rev_arms;		/* REVERSE: SubsetReverseArm * */
	char	  **ids_lits;		/* TARGET/DIRECT: array literals per column */
	char	   *seed;			/* seed predicate, or NULL */
	char	   *seed_from;		/* the seed as a join: FROM, or NULL */
	char	   *seed_where;		/* ... and its WHERE */
	bool		seed_frag;		/* seed holds the table's filter */
	char	   *seed_uncut;		/* the seed before a limit, a sample or the
								 * children's exclusion cut it, or NULL */
	int			may_cut;		/* 0 not known yet, 1 being found, 2 no, 3
								 * yes: a slice here or up its keys */
	List	   *seed_deps;		/* sets the seed reads */

	/*
	 * The seed as a join with the parent's key set where no index leads with
	 * the foreign key (seed_as_join), and the same for pred: the form a file
	 * takes when that set, seed_jset, is large (run/executor.c).
	 */
	char	   *seed_jfrom;
	char	   *seed_jwhere;
	int			seed_jset;
	char	   *pred_jfrom;
	char	   *pred_jwhere;
	bool		batched;		/* PATH seed computed in batch_scope slices */
	bool		batch_path;		/* on a batched table's path, below its batch
								 * table: its seed reads its parent's set,
								 * which each slice replaces */
	int			uset;			/* set of its rows no tenant's decide, or -1 */
	int			u_state;		/* 0, 1 building, 2 built (uset) */
	int			somebodys;		/* every row somebody's: 0 unknown, 1
								 * computing, 2 yes, 3 no (all_decided) */

	/* the sets: exwiw_s (seed keys), exwiw_x (closure adds), exwiw_f */
	bool		need_f;			/* exwiw_f is read by someone */
	SubsetCols	fcols;			/* columns of exwiw_x/exwiw_f rows */
	SubsetCols	scols;			/* columns of exwiw_s rows */
	int			sset;			/* set index of exwiw_s, or -1 */
	int			xset;			/* ... of exwiw_x, or -1 */
	int			fset;			/* ... of exwiw_f, or -1 */
	bool		fset_ctid;		/* exwiw_f carries each row's ctid, as
								 * exwiw_ctid (carries_ctid) */
	char	   *xcond;			/* condition of the rows closure adds */
	List	   *xdeps;			/* sets it reads */

	/* all the rows exported: the file's predicate */
	char	   *pred;			/* predicate of all rows, or NULL: none */
	char	   *pred_from;		/* all rows as a join (the seed's), or NULL */
	char	   *pred_where;
	bool		pred_frag;
	List	   *pred_deps;

	/* its delete file: the chain to the target (plan/delete.c) */
	char	   *chain_cond;		/* the condition, or NULL: none */
	bool		chain_done;		/* chain_cond is computed */

	/* recursion guards: 0, 1 building, 2 built */
	int			building;		/* the seed and its set */
	int			rows_state;		/* the predicate and exwiw_f */
	int			x_state;		/* exwiw_x */
} PlannerRel;

typedef struct Planner
{
	const SubsetRequest *req;	/* what was asked: target, ids */
	const char *funcname;
	SubsetConfig *cfg;
	SubsetPlan *plan;
	int			nt;
	bool		scope_mode;		/* ids are scope values, not keys */
	int			target_nids;	/* number of target ids */
	PlannerRel *rel;			/* per table: nt of them */
	List	   *sets;			/* SubsetSet * */
	List	   *cycle_arms;		/* edges left out of seeds: cycles */
	List	   *chain;			/* tables whose rows are being built, outer
								 * first (planner_enter) */
} Planner;

/* plan/planner.c: the helpers every phase calls, below them all */
extern int	planner_add_set(Planner *pl, const char *prefix, int table,
							char *query, bool frag, List *deps,
							const char *rule);
extern SubsetSet *planner_set(Planner *pl, int i);
extern bool planner_edge_live(Planner *pl, SubsetEdge *e);
extern void planner_enter(Planner *pl, int t);
extern void planner_leave(Planner *pl);
extern void planner_cycle_error(Planner *pl, int t);
extern const char *planner_alias(SubsetTable *t);
extern void planner_cols_union(SubsetCols *dst, const SubsetCols *b);
extern bool planner_cols_equal(const SubsetCols *a, const SubsetCols *b);
extern void planner_append_type_cond(StringInfo buf, const char *alias,
									 SubsetEdge *e);
extern void planner_append_key_match(StringInfo buf, const char *alias,
									 SubsetTable *t, SubsetSet *set);

/* a question about one index of a table, by its pg_index row */
typedef bool (*PlannerIndexTest) (SubsetTable *t, HeapTuple it, void *arg);
extern bool planner_any_index(SubsetTable *t, PlannerIndexTest fits, void *arg);

/* plan/decide.c: the first phase, no SQL */
extern void planner_seeds(Planner *pl);
extern bool planner_descends_by_self(Planner *pl, int ti);
extern bool planner_all_decided(Planner *pl, int ti);

/* plan/seeds.c: the seeds' SQL */
extern void planner_build_seed(Planner *pl, int t);
extern char *planner_seed_query(Planner *pl, int ti, const SubsetCols *cols);
extern bool planner_seed_constant(Planner *pl, int ti);

/* plan/whole.c: the tables an export may read whole */
extern void planner_whole(Planner *pl);
extern bool planner_may_be_whole(Planner *pl, int ti);
extern char *planner_ids_query(Planner *pl);
extern bool planner_index_leads(SubsetTable *t, const SubsetCols *cols,
								AttrNumber extra_att);

/* plan/limit.c: the keys a limit keeps */
extern bool planner_limit_by_index(SubsetTable *t);
extern char *planner_limit_window(SubsetTable *t, const char *pred);
extern char *planner_limit_top(SubsetTable *t, const char *pred, const char *values,
							   const SubsetCols *cols, const SubsetCols *srccols,
							   bool nulls);
extern char *planner_limit_skip_scan(SubsetTable *t, bool *nulls);

/* plan/closure.c */
extern void planner_closure_prepare(Planner *pl);
extern void planner_build_rows(Planner *pl, int t);
extern int	planner_fset(Planner *pl, int t);

/* plan/delete.c */
extern void planner_delete_conditions(Planner *pl);

#endif							/* EXWIW_SUBSET_PLANNER_H */

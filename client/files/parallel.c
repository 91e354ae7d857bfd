/*-------------------------------------------------------------------------
 *
 * parallel.c
 *	  The export's plan as the client sees it, and its files dealt to
 *	  parallel workers.
 *
 * exwiw_plan() lists the row sets the export computes (exwiw_s_3, ...,
 * each by one query over one table) and the files (each by one query,
 * reading some sets).  A worker that runs exwiw_export(..., files => its
 * share) computes every set its files read, directly or through other
 * sets, and no other: two workers whose files read one set both compute
 * it.  On a subset export the sets cost as much as the files (the set of
 * 2M order items that the order items, the products they reference, the
 * shops and the categories all depend on is the biggest single piece of
 * work of the 1,000-shop benchmark), so dealing the files by their size
 * alone makes -j 2 slower than -j 1.
 *
 * So a worker's cost is modelled as the size of the tables it reads: its
 * files' tables, plus the tables of every set its files need, each set
 * once.  Sizes come from the catalog (pg_relation_size(), summed over a
 * partition tree), which costs nothing; exwiw_explain()'s planner
 * estimates would need the sets computed first, which is most of the
 * export.  The deal minimizes the largest worker's cost plus half the work
 * done twice (the sum of the workers' costs less the cost of doing it all
 * on one): duplicated work is certainly lost, on a machine whose cores
 * the other workers, the client and other sessions share, while the
 * balance is only as good as the model, which cannot see that one query
 * of the server is cheap and another of the same size is a nested loop of
 * a million probes.  (On the 1,000-shop benchmark, the largest worker's
 * cost alone puts the order items apart from the files that read the
 * same 2M-row set; with half the duplicated work counted, they stay
 * together, and -j 2 gets faster.)  Exactly, by branch and bound, when
 * there are few files; otherwise largest file first to the worker where
 * it adds least, then single-file moves while they help.  Workers left
 * without files are not started.
 *
 * Parts (plan_split_files): with -j N, a file whose own size is more
 * than half a worker's fair share (the whole export's modelled cost over
 * N) and whose estimated rows are at least MIN_PART_ROWS is replaced by N
 * parts (exwiw_export(..., files => {f}, part => k, parts => N)), each of
 * 1/N of the file's size, which the deal places like files.  A part is a
 * call of its own, which computes every row set its file needs (the sets
 * live in the calling statement's memory, a temporary table would be
 * per session, and a table that every worker sees needs writes, which a
 * standby refuses), so a part's cost counts its sets in full, not shared
 * with the worker's other files: the deal splits a file across workers
 * only where that still pays.  Parts that all land on one worker are
 * joined back into the whole file (plan_join_parts).  EXWIW_PARTS=off
 * deals whole files only, for measuring the parts against them.
 *
 * Sizes are scaled by the share of the target's rows the ids select (ids
 * / the target's reltuples), except for tables the plan exports in full;
 * the scaled row estimates feed the progress display.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

/* the share of duplicated work that counts against a deal */
#define DUPLICATED_WORK_WEIGHT 0.5

/* the fewest estimated rows of a file split into parts */
#define MIN_PART_ROWS 10000

/* files up to which the deal is searched exhaustively, and for how long */
#define EXACT_DEAL_MAX_FILES 16
#define EXACT_DEAL_MAX_NODES 2000000L

/* The search state of the branch and bound. */
typedef struct DealSearch
{
	ExportPlan *plan;
	int			jobs;
	int		   *order;			/* files, largest first */
	int		   *assign;			/* worker of each file (plan order) */
	int		   *best;
	double		best_obj;		/* best objective */
	double		best_sum;
	double	   *load;			/* per worker */
	int		   *setcount;		/* jobs x nsets: files needing the set */
	long		nodes;
} DealSearch;

/*
 * set_index
 *		The set named name[0..len), or -1.
 */
static int
set_index(ExportPlan *plan, const char *name, size_t len)
{
	int			i;

	for (i = 0; i < plan->nsets; i++)
		if (strlen(plan->sets[i].name) == len && strncmp(plan->sets[i].name, name, len) == 0)
			return i;
	return -1;
}

/*
 * direct_deps
 *		The sets a query reads: every "exwiw_<letter>_<digits>" in its
 *		text that names a set of the plan.
 */
static void
direct_deps(ExportPlan *plan, const char *query, bool *deps)
{
	const char *p = query;

	while ((p = strstr(p, "exwiw_")) != NULL)
	{
		const char *e = p + 6;
		int			s;

		if ((*e == 's' || *e == 'x' || *e == 'f') && e[1] == '_' &&
			e[2] >= '0' && e[2] <= '9')
		{
			e += 2;
			while (*e >= '0' && *e <= '9')
				e++;
			if ((s = set_index(plan, p, e - p)) >= 0)
				deps[s] = true;
		}
		p += 6;
	}
}

/*
 * plan_export
 *		The plan's sets and files, with their sizes and the sets each file
 *		needs.  params are the export's (target, ids, config, ..., [6]
 *		ids_by_space); target is NULL in scope-column mode.
 */
ExportPlan *
plan_export(PGconn *conn, const char *nsp, const char *const *params,
			int nids, const char *target)
{
	ExportPlan *plan = pg_malloc0(sizeof(ExportPlan));
	char	   *sql;
	PGresult   *res;
	int			n,
				i,
				j,
				k;
	double		target_rows = -1;
	double		scale = 1.0;
	bool	  **setdeps;
	char	  **setqueries;
	const char *planparams[4];

	sql = psprintf("SELECT p.seq, p.table_name, p.output, p.rule, p.query, s.bytes, s.tuples "
				   "FROM %s.exwiw_plan($1, $2::pg_catalog.text[], $3::pg_catalog.jsonb, $4::pg_catalog.jsonb) p "
				   "LEFT JOIN LATERAL ("
				   " SELECT pg_catalog.sum(pg_catalog.pg_relation_size(t.relid))::float8 AS bytes,"
				   "  CASE WHEN pg_catalog.bool_and(c.reltuples >= 0)"
				   "   THEN pg_catalog.sum(c.reltuples)::float8 END AS tuples"
				   " FROM (SELECT pg_catalog.to_regclass("
				   "  CASE WHEN pg_catalog.strpos(p.table_name, '.') > 0"
				   "   THEN pg_catalog.quote_ident(pg_catalog.split_part(p.table_name, '.', 1)) || '.' ||"
				   "        pg_catalog.quote_ident(pg_catalog.split_part(p.table_name, '.', 2))"
				   "   ELSE pg_catalog.quote_ident(p.table_name) END) AS rel) r,"
				   " LATERAL (SELECT r.rel AS relid UNION SELECT pt.relid FROM pg_catalog.pg_partition_tree(r.rel) pt) t"
				   " JOIN pg_catalog.pg_class c ON c.oid = t.relid) s ON true "
				   "ORDER BY p.step", nsp);
	planparams[0] = params[0];
	planparams[1] = params[1];
	planparams[2] = params[2];
	planparams[3] = params[6];
	res = exec_params_checked(conn, sql, 4, planparams, NULL);
	n = PQntuples(res);
	plan->files = pg_malloc0(sizeof(PlanFile) * (n + 1));
	plan->sets = pg_malloc0(sizeof(PlanSet) * (n + 1));
	setqueries = pg_malloc0(sizeof(char *) * (n + 1));
	for (i = 0; i < n; i++)
	{
		double		bytes = PQgetisnull(res, i, 5) ? 0 : strtod(PQgetvalue(res, i, 5), NULL);
		double		rows = PQgetisnull(res, i, 6) ? -1 : strtod(PQgetvalue(res, i, 6), NULL);

		if (PQgetisnull(res, i, 0))
		{
			PlanSet    *s = &plan->sets[plan->nsets];

			s->name = pg_strdup(PQgetvalue(res, i, 2));
			s->table = pg_strdup(PQgetvalue(res, i, 1));
			s->cost = bytes;
			setqueries[plan->nsets] = pg_strdup(PQgetvalue(res, i, 4));
			plan->nsets++;
		}
		else
		{
			PlanFile   *f = &plan->files[plan->nfiles++];

			f->seq = atoi(PQgetvalue(res, i, 0));
			f->table = pg_strdup(PQgetvalue(res, i, 1));
			f->rule = pg_strdup(PQgetvalue(res, i, 3));
			f->query = pg_strdup(PQgetvalue(res, i, 4));
			f->cost = bytes;
			f->rows = rows;
			if (target != NULL && strcmp(f->table, target) == 0)
				target_rows = rows;
		}
	}
	PQclear(res);

	/* a subset of the target's rows selects about that share of the rest */
	if (target_rows > 0 && nids < target_rows)
		scale = nids / target_rows;
	for (i = 0; i < plan->nsets; i++)
		plan->sets[i].cost *= scale;
	for (i = 0; i < plan->nfiles; i++)
	{
		PlanFile   *f = &plan->files[i];

		if (strncmp(f->rule, "unrelated", 9) == 0)
			continue;
		f->cost *= scale;
		if (f->rows >= 0)
			f->rows = Max(f->rows * scale, target != NULL && strcmp(f->table, target) == 0 ? nids : 0);
	}

	/* the sets each set reads, then each file's, transitively */
	setdeps = pg_malloc0(sizeof(bool *) * (plan->nsets + 1));
	for (i = 0; i < plan->nsets; i++)
	{
		setdeps[i] = pg_malloc0(sizeof(bool) * (plan->nsets + 1));
		direct_deps(plan, setqueries[i], setdeps[i]);
	}
	for (i = 0; i < plan->nfiles; i++)
	{
		PlanFile   *f = &plan->files[i];
		bool	   *need = pg_malloc0(sizeof(bool) * (plan->nsets + 1));
		bool		grew = true;

		direct_deps(plan, f->query, need);
		while (grew)
		{
			grew = false;
			for (j = 0; j < plan->nsets; j++)
			{
				if (!need[j])
					continue;
				for (k = 0; k < plan->nsets; k++)
				{
					if (setdeps[j][k] && !need[k])
					{
						need[k] = true;
						grew = true;
					}
				}
			}
		}
		f->need = pg_malloc(sizeof(int) * (plan->nsets + 1));
		f->nneed = 0;
		f->standalone = f->cost;
		for (j = 0; j < plan->nsets; j++)
		{
			if (need[j])
			{
				f->need[f->nneed++] = j;
				f->standalone += plan->sets[j].cost;
			}
		}
		pg_free(need);
	}
	return plan;
}

/*
 * add_file / remove_file
 *		Put file f on worker w (or take it off), keeping the loads.
 */
static void
add_file(DealSearch *d, int f, int w)
{
	PlanFile   *file = &d->plan->files[f];
	int		   *cnt = d->setcount + (size_t) w * d->plan->nsets;
	int			i;

	d->assign[f] = w;
	if (file->parts > 0)
	{
		/* a part is a call of its own: its sets are its own */
		d->load[w] += file->standalone;
		return;
	}
	d->load[w] += file->cost;
	for (i = 0; i < file->nneed; i++)
		if (cnt[file->need[i]]++ == 0)
			d->load[w] += d->plan->sets[file->need[i]].cost;
}

static void
remove_file(DealSearch *d, int f, int w)
{
	PlanFile   *file = &d->plan->files[f];
	int		   *cnt = d->setcount + (size_t) w * d->plan->nsets;
	int			i;

	d->assign[f] = -1;
	if (file->parts > 0)
	{
		d->load[w] -= file->standalone;
		return;
	}
	d->load[w] -= file->cost;
	for (i = 0; i < file->nneed; i++)
		if (--cnt[file->need[i]] == 0)
			d->load[w] -= d->plan->sets[file->need[i]].cost;
}

/*
 * evaluate
 *		The deal's objective (the largest load plus the weighted sum, which
 *		differs from the duplicated work by a constant) and the sum.
 */
static void
evaluate(DealSearch *d, double *obj, double *sum)
{
	double		max = 0;
	int			w;

	*sum = 0;
	for (w = 0; w < d->jobs; w++)
	{
		max = Max(max, d->load[w]);
		*sum += d->load[w];
	}
	*obj = max + DUPLICATED_WORK_WEIGHT * *sum;
}

/*
 * better
 *		Whether (objective, sum) beats the best so far (with a little
 *		slack, so that rounding does not pick between equals).
 */
static bool
better(DealSearch *d, double max, double sum)
{
	if (max < d->best_obj * (1 - 1e-9))
		return true;
	return max <= d->best_obj * (1 + 1e-9) && sum < d->best_sum * (1 - 1e-9);
}

/*
 * search
 *		Branch and bound over the files in d->order from position i.
 */
static void
search(DealSearch *d, int i)
{
	int			w;
	bool		tried_empty = false;
	int			f;

	if (++d->nodes > EXACT_DEAL_MAX_NODES)
		return;					/* enough: keep the best found */
	if (i == d->plan->nfiles)
	{
		double		max,
					sum;

		evaluate(d, &max, &sum);
		if (better(d, max, sum))
		{
			d->best_obj = max;
			d->best_sum = sum;
			memcpy(d->best, d->assign, sizeof(int) * d->plan->nfiles);
		}
		return;
	}
	f = d->order[i];
	for (w = 0; w < d->jobs; w++)
	{
		bool		empty = (d->load[w] == 0);

		/* empty workers are all alike: try one */
		if (empty && tried_empty)
			continue;
		if (empty)
			tried_empty = true;
		add_file(d, f, w);
		{
			double		obj,
						sum;

			/* loads only grow: a partial objective already too high stops */
			evaluate(d, &obj, &sum);
			if (obj <= d->best_obj * (1 + 1e-9))
				search(d, i + 1);
		}
		remove_file(d, f, w);
	}
}

/*
 * standalone_desc
 *		qsort_arg: files by their cost alone (with their sets), largest
 *		first, then in file order.
 */
static int
standalone_desc(const void *a, const void *b, void *arg)
{
	ExportPlan *plan = arg;
	const PlanFile *x = &plan->files[*(const int *) a];
	const PlanFile *y = &plan->files[*(const int *) b];

	if (x->standalone != y->standalone)
		return x->standalone > y->standalone ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq - y->seq;
	return x->part - y->part;
}

/*
 * deal_from_env
 *		EXWIW_DEAL="1,2,3/4,5" deals the files by hand (shares separated by
 *		"/"), for benchmarking a deal against the model's; every file of
 *		the plan must be named once.  Returns the number of workers, or 0
 *		when the variable is not set.
 */
static int
deal_from_env(ExportPlan *plan)
{
	const char *env = getenv("EXWIW_DEAL");
	int			worker = 0;
	int			i;
	const char *p;

	if (env == NULL || env[0] == '\0')
		return 0;
	for (i = 0; i < plan->nfiles; i++)
		plan->files[i].worker = -1;
	for (p = env; *p;)
	{
		char	   *end;
		long		seq = strtol(p, &end, 10);

		if (end == p)
		{
			pg_log_error("EXWIW_DEAL must look like \"1,2/3,4\" (file numbers, shares separated by \"/\")");
			exit(1);
		}
		for (i = 0; i < plan->nfiles && plan->files[i].seq != seq; i++)
			;
		if (i == plan->nfiles || plan->files[i].worker != -1)
		{
			pg_log_error("EXWIW_DEAL: file %ld is not in the plan, or named twice", seq);
			exit(1);
		}
		plan->files[i].worker = worker;
		p = end;
		if (*p == '/')
			worker++;
		if (*p == ',' || *p == '/')
			p++;
	}
	for (i = 0; i < plan->nfiles; i++)
	{
		if (plan->files[i].worker < 0)
		{
			pg_log_error("EXWIW_DEAL: file %d of the plan is not dealt", plan->files[i].seq);
			exit(1);
		}
	}
	return worker + 1;
}

/*
 * deal_files
 *		Set each file's worker (0 .. n-1, in order of first use); the
 *		number n of workers that got files (at most jobs, at least 1).
 */
int
deal_files(ExportPlan *plan, int jobs)
{
	DealSearch	d = {0};
	int			nf = plan->nfiles;
	int			i,
				w;
	int		   *renumber;
	int			used = 0;

	if ((used = deal_from_env(plan)) > 0)
		return used;

	/*
	 * Every size below is sizeof(x) * nf: a count that is not positive is a
	 * plan without files (a negative int would wrap to a huge size_t, which
	 * gcc 14 points out), all on one worker.
	 */
	if (nf <= 0 || jobs <= 1)
	{
		for (i = 0; i < nf; i++)
			plan->files[i].worker = 0;
		return 1;
	}
	d.plan = plan;
	d.jobs = jobs;
	d.order = pg_malloc(sizeof(int) * nf);
	d.assign = pg_malloc(sizeof(int) * nf);
	d.best = pg_malloc(sizeof(int) * nf);
	d.load = pg_malloc0(sizeof(double) * jobs);
	d.setcount = pg_malloc0(sizeof(int) * (size_t) jobs * (plan->nsets + 1));
	for (i = 0; i < nf; i++)
		d.order[i] = i;
	qsort_arg(d.order, nf, sizeof(int), standalone_desc, plan);

	/* greedy: each file where it adds least to the largest load */
	for (i = 0; i < nf; i++)
	{
		int			f = d.order[i];
		int			bestw = 0;
		double		bestmax = -1,
					bestsum = 0;

		for (w = 0; w < jobs; w++)
		{
			double		max,
						sum;

			add_file(&d, f, w);
			evaluate(&d, &max, &sum);
			if (bestmax < 0 || max < bestmax || (max == bestmax && sum < bestsum))
			{
				bestmax = max;
				bestsum = sum;
				bestw = w;
			}
			remove_file(&d, f, w);
		}
		add_file(&d, f, bestw);
	}
	evaluate(&d, &d.best_obj, &d.best_sum);
	memcpy(d.best, d.assign, sizeof(int) * nf);

	if (nf <= EXACT_DEAL_MAX_FILES)
	{
		/* exact: branch and bound from empty workers */
		for (i = 0; i < nf; i++)
			remove_file(&d, i, d.assign[i]);
		search(&d, 0);
	}
	else
	{
		/* single-file moves while they help */
		bool		improved = true;
		int			rounds = 0;

		while (improved && rounds++ < 50)
		{
			improved = false;
			for (i = 0; i < nf; i++)
			{
				int			from = d.assign[i];

				for (w = 0; w < jobs; w++)
				{
					double		max,
								sum;

					if (w == from)
						continue;
					remove_file(&d, i, from);
					add_file(&d, i, w);
					evaluate(&d, &max, &sum);
					if (better(&d, max, sum))
					{
						d.best_obj = max;
						d.best_sum = sum;
						from = w;
						improved = true;
					}
					else
					{
						remove_file(&d, i, w);
						add_file(&d, i, from);
					}
				}
			}
		}
		memcpy(d.best, d.assign, sizeof(int) * nf);
	}

	/* workers numbered in order of their first file; empty ones dropped */
	renumber = pg_malloc(sizeof(int) * jobs);
	for (w = 0; w < jobs; w++)
		renumber[w] = -1;
	for (i = 0; i < nf; i++)
	{
		if (renumber[d.best[i]] < 0)
			renumber[d.best[i]] = used++;
		plan->files[i].worker = renumber[d.best[i]];
	}
	pg_log_debug("dealt %d files to %d workers (modelled: objective %.0f, total %.0f bytes; %ld search nodes)",
				 nf, used, d.best_obj, d.best_sum, d.nodes);
	for (w = 0; w < used; w++)
	{
		StringInfoData b;

		initStringInfo(&b);
		for (i = 0; i < nf; i++)
			if (plan->files[i].worker == w)
				appendStringInfo(&b, "%s%d", b.len ? "," : "", plan->files[i].seq);
		pg_log_debug("worker %d: files %s (the form of EXWIW_DEAL)", w + 1, b.data);
		pfree(b.data);
	}
	pg_free(renumber);
	pg_free(d.order);
	pg_free(d.assign);
	pg_free(d.best);
	pg_free(d.load);
	pg_free(d.setcount);
	return Max(used, 1);
}

/*
 * plan_split_files
 *		A plan in which the files worth splitting for jobs workers (see the
 *		file header) are replaced by jobs parts each, in file order; plan
 *		itself when none is.  The files keep their order; a file's parts
 *		follow each other.
 */
ExportPlan *
plan_split_files(ExportPlan *plan, int jobs)
{
	ExportPlan *out;
	double		total = 0;
	double		fair;
	int			nsplit = 0;
	int			i,
				k;

	/* a deal by hand (EXWIW_DEAL) names whole files; EXWIW_PARTS=off */
	if (jobs <= 1 || plan->nfiles <= 0 ||
		(getenv("EXWIW_DEAL") != NULL && getenv("EXWIW_DEAL")[0] != '\0') ||
		(getenv("EXWIW_PARTS") != NULL && strcmp(getenv("EXWIW_PARTS"), "off") == 0))
		return plan;
	for (i = 0; i < plan->nfiles; i++)
		total += plan->files[i].cost;
	for (i = 0; i < plan->nsets; i++)
		total += plan->sets[i].cost;
	fair = total / jobs;
	for (i = 0; i < plan->nfiles; i++)
	{
		PlanFile   *f = &plan->files[i];

		f->parts = (f->rows >= MIN_PART_ROWS && f->cost > fair / 2) ? jobs : 0;
		if (f->parts > 0)
			nsplit++;
	}
	if (nsplit == 0)
		return plan;

	out = pg_malloc0(sizeof(ExportPlan));
	out->nsets = plan->nsets;
	out->sets = plan->sets;
	out->files = pg_malloc0(sizeof(PlanFile) * (plan->nfiles + nsplit * (jobs - 1) + 1));
	for (i = 0; i < plan->nfiles; i++)
	{
		PlanFile   *f = &plan->files[i];

		if (f->parts == 0)
		{
			out->files[out->nfiles++] = *f;
			continue;
		}
		for (k = 1; k <= f->parts; k++)
		{
			PlanFile   *p = &out->files[out->nfiles++];

			*p = *f;
			p->part = k;
			p->cost = f->cost / f->parts;
			p->rows = f->rows / f->parts;
			p->standalone = f->standalone - f->cost + p->cost;
		}
		pg_log_debug("file %d (%s, about %.0f rows) split into %d parts",
					 f->seq, f->table, f->rows, f->parts);
	}
	return out;
}

/*
 * plan_join_parts
 *		After the deal: a file whose parts all went to one worker becomes
 *		one whole file again (its first part's entry, the others dropped).
 */
void
plan_join_parts(ExportPlan *plan)
{
	int			i = 0,
				j,
				o = 0;

	while (i < plan->nfiles)
	{
		PlanFile   *f = &plan->files[i];
		int			n = f->parts > 0 ? f->parts : 1;
		bool		one = true;

		for (j = 1; j < n; j++)
			one &= plan->files[i + j].worker == f->worker;
		if (f->parts > 0 && one)
		{
			PlanFile	whole = *f;

			whole.part = 0;
			whole.parts = 0;
			whole.cost = f->cost * n;
			whole.rows = f->rows * n;
			plan->files[o++] = whole;
		}
		else
		{
			for (j = 0; j < n; j++)
				plan->files[o++] = plan->files[i + j];
		}
		i += n;
	}
	plan->nfiles = o;
}

/*-------------------------------------------------------------------------
 *
 * subset.h
 *	  The subset export engine: config, foreign-key graph, planner.
 *
 * A subset export writes every row that belongs to a target (say shop 1)
 * across many tables, closed under foreign keys, one file per table.  It is
 * built from these files (each group its own header where it has shared
 * state: config/config.h, plan/planner.h, run/run.h):
 *
 *	subset/funcs.c		the SQL functions, thin: arguments into a SubsetArgs
 *	plan/request.c	a call's ids decoded, and its config, request and
 *						plan made (subset_plan_from_args)
 *	config/			a config document (jsonb) checked and resolved
 *						into a SubsetConfig: jsonb access, columns and
 *						masks, edges, names, the checks
 *	catalog/read.c	the config the catalog implies: foreign keys,
 *						partitions and inheritance; catalog/infer.c the
 *						edges real applications leave undeclared;
 *						catalog/evidence.c and catalog/queries.c the
 *						relations offered from the data and from
 *						pg_stat_statements; catalog/sensitive.c which
 *						columns look sensitive, catalog/values.c which hold
 *						secrets by their values (a sample of them),
 *						catalog/secrets.c what a secret looks like;
 *						catalog/spelling.c a table's name in a config
 *	plan/order.c		the processing (file) order, as the Ruby client
 *						computes it: rounds, cycles broken at nullable keys
 *	plan/decide.c		which rows: each table's rule, paths and arms,
 *						decided as PlannerRel per table, no SQL written
 *	plan/build.c,		then turned into row sets and one extraction query
 *	plan/seeds.c,		per table: the driver and the files' queries,
 *	plan/closure.c,	the seeds, the closure, the select list with its
 *	plan/select.c		masks (plan/planner.h); plan/whole.c the tables
 *						an export may read whole
 *	sql/deparse.c	SQL text that exwiw writes: qualified names,
 *						equality operators, key tuples
 *	run/			running a plan: privileges and locks, the snapshot
 *						check, the tables read whole, row sets, sequences,
 *						self-reference depths, withheld errors, delete
 *						files written
 *	run/export.c		the files, streamed (exwiw_export, the directory
 *						sink); plan/delete.c their delete files;
 *						plan/file_name.c their names
 *	subset/explain.c	every file's query EXPLAINed on the export's sets
 *	subset/preview.c	a table's masked columns beside their originals
 *
 * A config names tables; an edge is one belongs_to: (child, parent, child
 * columns, parent columns).  The planner turns config + target + ids into a
 * SubsetPlan: a list of row sets (each computed once, by one query, into a
 * tuplestore that later queries read as an ephemeral named relation) and one
 * extraction query per table.  Nothing in a plan is read through the
 * caller's search_path except the user's own SQL fragments ("filter",
 * "raw_sql").
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_SUBSET_H
#define EXWIW_SUBSET_H

#include "exwiw.h"

#include "nodes/pg_list.h"
#include "utils/jsonb.h"
#include "utils/relcache.h"
#include "utils/tuplestore.h"

/* Defaults of bulk_insert_chunk_size and batch_scope.size, as the client. */
#define SUBSET_DEFAULT_CHUNK	10000
#define SUBSET_DEFAULT_BATCH	1000

/* The masks that are SQL functions (config/masks.c). */
typedef enum SubsetMaskKind
{
	SUBSET_MASK_NONE = 0,
	SUBSET_MASK_PSEUDONYM,
	SUBSET_MASK_PARTIAL,
	SUBSET_MASK_NOISE,
	SUBSET_MASK_GENERALIZE,
	SUBSET_MASK_JSON
} SubsetMaskKind;

/* One column of a table's config: exported as is, or masked. */
typedef struct SubsetColumn
{
	char	   *name;
	AttrNumber	attnum;
	Oid			typid;
	int32		typmod;
	char	   *raw_sql;		/* SQL expression, or NULL */
	bool		raw_sql_trusted;	/* "raw_sql_trusted": it may read other
									 * rows and tables */
	char	   *replace_with;	/* template text, or NULL */
	int			decision;		/* needs_mask_decision: -1 absent, 0, 1 */
	bool		identity_always;	/* GENERATED ALWAYS AS IDENTITY */
	int			cfgpos;			/* index in the config's "columns" */
	bool		ignored;		/* "ignore": true, left out */
	char	   *fake_type;		/* replace_with_fake_data: type, or NULL */
	char	   *fake_locale;	/* ... its locale, or NULL */
	char	   *fake_seed;		/* ... the column whose value seeds it */
	bool		fake_unique;	/* ... widened: a unique index holds it */
	char	   *override_sql;	/* the planner's expression instead (a cycle's
								 * column written NULL), or NULL */
	SubsetMaskKind mask;		/* pseudonym, partial, noise, generalize, json */
	char	   *mask_type;		/* pseudonym: its type */
	char	   *mask_locale;	/* ... its locale, or NULL */
	char	   *mask_from;		/* ... the column whose value it is made of */
	char	   *mask_unique;	/* ... a unique index holding the column: the
								 * pseudonym is widened (plan/select.c) */
	int			keep_start;		/* partial: characters kept at the start */
	int			keep_end;		/* ... and at the end */
	char	   *mask_fill;		/* ... what replaces each other one */
	bool		keep_domain;	/* ... an e-mail's "@domain" is kept */
	double		noise_ratio;	/* noise of a number, or 0 */
	char	   *noise_interval; /* noise of a date or time, or NULL */
	char	   *gen_to;			/* generalize a date or time to this unit */
	char	   *gen_step;		/* ... a number to a multiple of this */
	char	   *mask_json;		/* json: the checked spec, as JSON text */
} SubsetColumn;

/* A piece of a replace_with template: literal text, or {column}. */
typedef struct SubsetTemplatePart
{
	bool		is_ref;
	char	   *text;
} SubsetTemplatePart;

#define SubsetColumnIsMasked(c) \
	((c)->raw_sql != NULL || (c)->replace_with != NULL || (c)->fake_type != NULL || \
	 (c)->mask != SUBSET_MASK_NONE)

/* A list of columns of one table (a key, or the side of an edge). */
typedef struct SubsetCols
{
	int			n;
	char	  **names;
	AttrNumber *attnums;
	Oid		   *typids;
	int32	   *typmods;
	Oid		   *collids;
} SubsetCols;

/* One belongs_to: rows of child reference rows of parent. */
typedef struct SubsetEdge
{
	int			child;			/* table indexes, config order */
	int			parent;
	int			pos;			/* index in the child's belongs_tos */
	SubsetCols	fk;				/* child columns */
	SubsetCols	ref;			/* parent columns they reference */
	SubsetCols	type_col;		/* polymorphic: the child's type column */
	char	   *type_value;		/* ... and the value naming this parent */
	bool		broken;			/* dropped to break a cycle */
	bool		deferred;		/* cuts a cycle: written NULL, set later */
	bool		delegated;		/* "delegated": the parent row is the child
								 * row's own (Rails' delegated_type) */
	int8		not_null;		/* subset_edge_not_null: 0 not known yet, 1
								 * no, 2 yes */
	int8		enforced;		/* subset_edge_enforced: the same */
	Oid			conoid;			/* ... the constraint that enforces it */
} SubsetEdge;

#define SubsetEdgeIsPolymorphic(e) ((e)->type_value != NULL)
/* Does the config narrow table t's own rows (filter, limit, sample)? */
#define SubsetTableNarrowed(t) \
	((t)->filter != NULL || (t)->limit_rows > 0 || (t)->sample > 0)

/* One arm of a reverse_scope: values of column of table. */
typedef struct SubsetReverseArm
{
	int			table;
	SubsetCols	col;
} SubsetReverseArm;

#define SubsetEdgeIsSelf(e) ((e)->child == (e)->parent)

/* One table of the config. */
typedef struct SubsetTable
{
	char	   *name;			/* as the config names it */
	char	   *outname;		/* as the files write it (ident.c's form) */
	Oid			relid;
	char		relkind;
	char	   *nspname;
	char	   *relname;
	char	   *qualname;		/* "nsp"."rel", quoted for SQL */
	SubsetCols	pk;				/* n = 0: no primary key */
	char	   *filter;			/* SQL predicate, or NULL */
	/* slices (issue 40): the seed narrowed further, closure kept */
	int64		limit_rows;		/* "limit": at most this many rows, or 0 */
	SubsetCols	limit_per;		/* ... per distinct value of these */
	char	   *limit_order;	/* ... the first by this ORDER BY list */
	double		sample;			/* "sample": the share kept, or 0 */
	char	   *sample_seed;	/* ... keyed by this text ("" none) */
	int			chunk;			/* rows per INSERT statement */
	bool		ignore;
	bool		export_all;		/* "export": "all": may go out in full */
	bool		needs_scope_decision;	/* safe mode: undecided */
	List	   *undecided_arms; /* polymorphic arms that wait for a table
								 * (needs_table_decision): "col = 'Type'" */
	List	   *proposals;		/* belongs_tos offered ("proposed": true), not
								 * applied: "col -> table" */
	bool		no_cascade;		/* the planner found its cascade in a cycle */
	bool		no_claims;		/* ... or its delegated rows in one */
	int			ncols;
	SubsetColumn *cols;			/* the exported columns, config order */
	bool		any_mask;
	/* the Ruby client's scope keys */
	SubsetCols	scope_col;		/* scope_column (n = 0: none) */
	bool		scope_exempt;
	char	   *id_space;		/* NULL: "default" */
	char	   *type;			/* table type, or NULL */
	bool		rails_managed;	/* type rails_managed_*: SELECT *, no list */
	SubsetCols	reverse_col;	/* reverse_scope.column (default: key) */
	List	   *reverse_via;	/* SubsetReverseArm *, NIL: no reverse_scope */
	bool		has_reverse;
	int			batch_table;	/* batch_scope.table, or -1 */
	int			batch_size;
} SubsetTable;

/* A checked config. */
typedef struct SubsetConfig
{
	int			ntables;
	SubsetTable *tables;
	int			nedges;
	SubsetEdge *edges;
	bool		allow_undecided;	/* the export goes on with undecided
									 * tables and columns */
	bool		cascade_cut;	/* planning failed on a cascade's cycle */
	bool		keep_cycle_values;	/* no file order to keep (JSON Lines): a
									 * cycle's columns are written as is */
} SubsetConfig;

/* A row set, computed once into a tuplestore (see run/executor.c). */
typedef struct SubsetSet
{
	char	   *name;			/* exwiw_s_3, exwiw_x_3, exwiw_f_3 */
	int			table;
	char	   *query;
	char	   *rule;			/* what the set holds, for exwiw_plan */
	bool		fragment;		/* query holds a user fragment */
	List	   *deps;			/* indexes of the sets it reads */
	bool		needed;			/* a file to be written reads it */

	/*
	 * batch_scope: the query runs once per slice of batch_size rows of set
	 * batch_source, each time after the sets of batch_chain (nearest the
	 * source first) are computed again from that slice alone; the results are
	 * appended with the batch's number as a last column, exwiw_batch.
	 * batch_source is -1 for a set computed at once.
	 */
	int			batch_source;
	char	   *batch_order;	/* the source's rows, keys sorted as text */
	List	   *batch_chain;
	int			batch_size;

	char		kind;			/* 's', 'x', 'f', 'u': its name's letter */

	/*
	 * the same rows read from the table alone, for when the table is read
	 * whole (plan/whole.c), or NULL; a closure set's returns no row
	 */
	char	   *whole_query;
} SubsetSet;

/* One file: a table's rows, in load order. */
typedef struct SubsetFile
{
	int			table;
	int			seq;			/* 1-based position in processing order */
	char	   *file_name;		/* set by the caller, per format */
	char	   *query;			/* the extraction query */
	char	   *ctid_query;		/* the same, reading the rows of set ctid_set
								 * back by ctid, or NULL */
	int			ctid_set;
	char	   *join_query;		/* the same, reading the parent set join_set
								 * by a join, for when it is large; or NULL */
	int			join_set;
	char	   *pred_query;		/* the same, by its own predicate, which reads
								 * no set, for when its rows' set count_set is
								 * large; or NULL */
	/* its rows counted (exwiw_explain's count_rows) without reading them */
	char	   *whole_query;	/* the same, every row of the table, for when
								 * its table is read whole (plan/whole.c), or
								 * NULL; whole_count_query counts them */
	char	   *whole_count_query;
	int			count_set;		/* a set holding exactly its rows, or -1 */
	char	   *count_query;	/* else SELECT count(*) of its rows */
	char	   *count_join_query;	/* the same as join_query's, or NULL */
	char	   *rule;			/* which rows, for exwiw_plan */
	bool		fragment;
	List	   *deps;			/* sets read */
	/* self-referencing tables: rows ordered parents first */
	char	   *depth_query;	/* pairs (child, parent) of row numbers */
	bool		has_rows;		/* false: known to have no rows */
	int			filter_set;		/* set whose rows the filter would drop, or -1 */
	char	   *filter_query;	/* counts them, or NULL */
	/* a cycle's fix-up: the columns written NULL, set once all is loaded */
	bool		fixup;
	char	   *conflict;		/* "ON CONFLICT (key) DO UPDATE SET ..." */
	/* its delete file (plan/delete.c): name, and the tenant's rows */
	char	   *delete_name;	/* delete-NNN-<table>.sql */
	char	   *delete_cond;	/* the tenant's rows as the target database
								 * finds them (a WHERE), or NULL */
	bool		delete_by_key;	/* delete the tenant's exported rows by key */
	char	   *delete_keys;	/* which of the file's rows are the tenant's
								 * (a condition on exwiw_d), NULL: all */
	List	   *delete_deps;	/* sets delete_keys reads */
	bool		delete_fragment;	/* delete_keys holds a user fragment */
} SubsetFile;


/*
 * SubsetIds
 *		Ids as the caller gave them, decoded at the SQL entry point
 *		(plan/request.c): ndims 0 (none), 1 or 2 with dims as given, and
 *		nvalues values in row-major order, each a C string or NULL for a
 *		NULL element.
 */
typedef struct SubsetIds
{
	int			ndims;
	int			dims[2];
	int			nvalues;
	char	  **values;
} SubsetIds;

/* The ids of one named id space (ids_by_space). */
typedef struct SubsetSpaceIds
{
	const char *space;
	SubsetIds	ids;
} SubsetSpaceIds;

/*
 * SubsetRequest
 *		What a caller asks the planner for: the export of target's rows
 *		(NULL: scope-column mode) with keys ids, or of the scope values ids
 *		and the named spaces' ids, under cfg, on behalf of SQL function
 *		funcname (for messages).  Filled by subset_request_init; the
 *		planner sees no fcinfo, ArrayType or Jsonb.
 */
typedef struct SubsetRequest
{
	const char *funcname;
	SubsetConfig *cfg;
	const char *target;
	SubsetIds	ids;			/* the default id space */
	List	   *spaces;			/* SubsetSpaceIds *, by name */
} SubsetRequest;

/*
 * When table t (SubsetPlan.whole[t]) is read whole, every row of it being
 * exported (plan/whole.c): when the seed of parent is, through edge, or
 * when check, run on the export's snapshot, returns true.
 */
typedef struct SubsetWhole
{
	int			parent;			/* table, or -1 */
	int			edge;			/* ... and the edge to it */
	char	   *check;			/* "SELECT NOT EXISTS (a row outside the
								 * seed)", or NULL */
} SubsetWhole;

/* A plan: sets in the order they are computed, files in load order. */
typedef struct SubsetPlan
{
	SubsetConfig *cfg;
	int			target;
	int			nsets;
	SubsetSet  *sets;
	int			nfiles;
	SubsetFile *files;
	int		   *order;			/* table indexes in processing order */
	int			norder;
	char	   *ids_query;		/* target ids that match no row, or NULL */
	List	   *undecided;		/* names of tables that would go out in full,
								 * or that safe mode left undecided */
	bool		allow_missing_ids;	/* target ids matching no row: NOTICE */
	int			target_nids;	/* target ids given, 0 in scope-column mode */
	SubsetWhole *whole;			/* per table */
	bool		deletes;		/* delete files are written too */
} SubsetPlan;

/*
 * The arguments of a subset function (exwiw_plan, exwiw_explain,
 * exwiw_export, exwiw_export_to_dir), decoded from the call by its SQL
 * entry point (subset/funcs.c, sink/funcs.c), so that the engine never
 * sees a FunctionCallInfo.  An argument a call does not have (one made
 * through 1.0's declaration, or a function without it) holds its default.
 * ids and the jsonb arguments are decoded further by plan/request.c and
 * the config parser, which know the tables they are for.
 */
typedef struct SubsetArgs
{
	const char *fn;				/* the SQL function, for messages */
	const char *target;			/* target_table, or NULL: scope columns */
	ArrayType  *ids;			/* text[], never NULL */
	Jsonb	   *config;			/* or NULL: the catalog's */
	Jsonb	   *ids_by_space;	/* or NULL */
	ExwiwSqlFormat format;		/* the files' format (exports) */
	bool		allow_undecided;
	bool		allow_missing_ids;
	bool		deletes;		/* delete files after the insert files */
	int32	   *files;			/* files => ..., nfiles numbers; or NULL */
	int			nfiles;
	int			part;			/* part => k, parts => n; or 0 */
	int			parts;
	int64		split_rows;		/* pieces of at most this many rows; or 0 */
	bool		actual;			/* exwiw_explain: EXPLAIN ANALYZE */
	bool		count_rows;		/* exwiw_explain: each file's rows counted */
} SubsetArgs;

/* Where an error happened, for the error context. */
typedef struct SubsetErrorContext
{
	const char *funcname;
	const char *table;
	const char *key;
} SubsetErrorContext;

/* config/parse.c */
extern SubsetConfig *subset_config_parse(const char *funcname, Jsonb *config);
extern List *subset_template_parse(const char *tpl);

/* config/masks.c */
extern void subset_config_parse_masks(SubsetErrorContext *ectx, SubsetTable *t,
									  SubsetColumn *c, JsonbValue *cv, int pos);
extern void subset_config_check_masks(SubsetConfig *cfg);
extern int	subset_config_undecided_columns(SubsetConfig *cfg, StringInfo list);
extern int	subset_config_undecided_arms(SubsetConfig *cfg, StringInfo list);
extern int	subset_config_proposals(SubsetConfig *cfg, StringInfo list);

/* catalog/spelling.c: a table's name in a config */
extern int	subset_name_readings(const char *name, Oid *found, char **outnames,
								 int max);
extern int	subset_name_max_readings(const char *name);
extern char *subset_quoted_name(Oid relid);
extern Oid	subset_resolve_name(const char *name);
extern char *subset_config_spelling(Oid relid, bool bare);

/* catalog/read.c: a foreign key as declared, ends mapped to roots */
typedef struct SubsetCatalogFk
{
	char	   *conname;
	Oid			child;
	Oid			parent;
	int			n;
	char	  **fk;
	char	  **ref;
	const char *inferred;		/* not declared: why it is inferred, or NULL */
	char	   *type_col;		/* inferred polymorphic arm: type column */
	char	   *type_value;		/* ... and the value naming the parent */
	const char *unmapped;		/* parent InvalidOid: why the type value maps
								 * to no table (a decision for a person) */
	const char *proposed;		/* offered, not applied: the evidence (the
								 * data, the queries run), or NULL */
} SubsetCatalogFk;

/* One table of a generated config. */
typedef struct SubsetCatTable
{
	Oid			relid;
	char	   *name;
	const char *maybe_type;		/* a polymorphic type value that maps to no
								 * table and may be stored here, or NULL */
} SubsetCatTable;

extern Oid	subset_root_relid(Oid relid);
extern List *subset_catalog_fks(void);
extern Oid	subset_current_schema(void);
extern Jsonb *subset_catalog_config(Oid nspid, bool propose);

/* catalog/infer.c */
extern List *subset_infer_fks(SubsetCatTable *tables, int n, List *fks);
extern bool subset_looks_like_key(const char *col);
extern char *subset_plural(const char *s);
extern SubsetCatalogFk *subset_infer_new_fk(Oid child, Oid parent, const char *col,
											const char *ref, const char *why);
extern char *subset_single_key(Oid relid, Oid *typid);
extern bool subset_same_key_type(Oid a, Oid b);
extern bool subset_fk_covers(List *fks, Oid relid, const char *col);

extern List *subset_parse_quietly(const char *sql, char **why);

/* catalog/evidence.c: relations offered from the data */
extern List *subset_propose_from_data(SubsetCatTable *tables, int n, List *fks);

/* catalog/queries.c: relations offered from the joins pg_stat_statements saw */
extern List *subset_propose_from_queries(SubsetCatTable *tables, int n, List *fks,
										 char **note);

/* catalog/sensitive.c: what a column looks like it holds (safe mode) */
typedef enum SubsetSensitiveKind
{
	SENSITIVE_NONE,				/* nothing personal or secret */
	SENSITIVE_OTHER,			/* sensitive, no better default than text */
	SENSITIVE_NAME,				/* a person's name */
	SENSITIVE_FIRST_NAME,
	SENSITIVE_LAST_NAME,
	SENSITIVE_USERNAME,			/* a handle, often unique */
	SENSITIVE_EMAIL,
	SENSITIVE_PHONE,
	SENSITIVE_ADDRESS,			/* a postal address */
	SENSITIVE_CITY,
	SENSITIVE_COMPANY,
	SENSITIVE_IP,				/* an IP address (inet, cidr, or by name) */
	SENSITIVE_PASSWORD_DIGEST	/* a password's digest, not the password */
} SubsetSensitiveKind;

extern bool subset_word_in(const char *w, const char *const *list);
extern SubsetSensitiveKind subset_column_sensitivity(const char *table,
													 const char *column,
													 Oid typid);
extern bool subset_column_looks_sensitive(const char *table, const char *column,
										  Oid typid);

/* catalog/secrets.c: what a secret looks like */
typedef enum SubsetSecretKind
{
	SUBSET_SECRET_PEM,			/* a PEM private key */
	SUBSET_SECRET_JWT,
	SUBSET_SECRET_PREFIXED,		/* a provider's key by its prefix */
	SUBSET_SECRET_URL_PASSWORD, /* scheme://user:pass@ */
	SUBSET_SECRET_BASIC,		/* HTTP Basic credentials */
	SUBSET_SECRET_URL_PARAM,	/* ?token=, &sig=, #access_token= */
	SUBSET_SECRET_URL_SERVICE,	/* web-push endpoints, webhooks */
	SUBSET_SECRET_PUSH_KEY,		/* a web-push p256dh key */
	SUBSET_SECRET_DIGEST,		/* a password digest */
	SUBSET_SECRET_JSON_KEY,		/* a json key named like a secret */
	SUBSET_SECRET_CODES,		/* weak: an array of one-time codes */
	SUBSET_SECRET_TOKEN,		/* weak: a long random token */
	SUBSET_NUM_SECRET_KINDS
} SubsetSecretKind;

#define SUBSET_SECRET_BIT(kind)	((uint32) 1 << (kind))

extern const char *subset_secret_kind_name(SubsetSecretKind kind);
extern bool subset_secret_kind_strong(SubsetSecretKind kind);
extern uint32 subset_secret_string(const char *s, bool tokens, int min_token);
extern bool subset_secret_codes(char **elems, int n);
extern bool subset_secret_placeholder(const char *s, int n);
extern bool subset_secret_key_name(const char *key);
extern bool subset_secret_random_key(const char *key);
extern bool subset_secret_path_key(const char *key);
extern bool subset_secret_random_column(const char *column);
extern bool subset_secret_is_url(const char *s);

/* catalog/values.c: secrets seen in a sample of a column's values */
typedef struct SubsetValueSecrets
{
	char	   *seen;			/* the kinds seen, in how many of how many
								 * sampled values; never a value */
	bool		urls;			/* every sampled value is one URL */
	bool		digest;			/* every sampled value is a password digest */
	List	   *paths;			/* jsonb: the paths of the secrets ("$.a.b"),
								 * NIL when no mask path can name them all */
} SubsetValueSecrets;

extern bool subset_values_candidate(Oid typid);
extern SubsetValueSecrets **subset_values_secrets(Relation rel, const bool *want,
												  char **unread);
extern double subset_values_blocks(Relation rel);

extern bool subset_edge_not_null(SubsetConfig *cfg, SubsetEdge *e);
extern bool subset_edge_enforced(SubsetConfig *cfg, SubsetEdge *e);

/* plan/order.c */
extern int *subset_processing_order(SubsetConfig *cfg, int *n);

/* sql/deparse.c */
extern void subset_append_eq(StringInfo buf, const char *l, Oid ltype,
							 const char *r, Oid rtype);
extern void subset_append_cols(StringInfo buf, const char *alias,
							   const SubsetCols *cols);
extern void subset_append_match(StringInfo buf, const char *alias,
								const SubsetCols *cols, const char *subquery,
								const SubsetCols *subcols);
extern void subset_append_literal(StringInfo buf, const char *s);
extern char *subset_type_name(Oid typid, int32 typmod);
extern char *subset_relation_sql(SubsetTable *t);
extern void subset_check_fragment(const char *funcname, SubsetTable *t,
								  const char *key, const char *fragment,
								  bool is_filter);
extern void subset_check_order_by(SubsetTable *t, const char *key,
								  const char *text);

/* config/names.c */
extern int	subset_config_find(SubsetConfig *cfg, const char *name);
extern char *subset_unique_index_with(Oid relid, AttrNumber attnum);

/* plan/build.c */
extern SubsetPlan *subset_plan_build(const SubsetRequest *req);
extern bool subset_select_has_fragment(SubsetTable *t);
extern char *subset_select_list(SubsetTable *t);
extern char *subset_mask_expr(SubsetTable *t, SubsetColumn *c, const char *alias);
extern void subset_plan_name_files(SubsetPlan *plan, const char *ext);
extern void subset_plan_keep_files(SubsetPlan *plan, const int32 *files,
								   int n);
extern void subset_plan_check_decided(SubsetPlan *plan, bool allow_undecided);

/* plan/request.c */
extern void subset_request_init(SubsetRequest *req, const char *funcname,
								SubsetConfig *cfg, const char *target,
								ArrayType *ids, Jsonb *ids_by_space);
extern SubsetPlan *subset_plan_from_args(const SubsetArgs *a, bool export);

/* plan/planner.c */
extern const SubsetIds *subset_request_space(const SubsetRequest *req,
											 const char *space);

/* plan/delete.c */
extern bool subset_delete_wanted(SubsetPlan *plan, int file);
extern void subset_delete_check(SubsetPlan *plan);
extern void subset_delete_append_qualified(StringInfo buf, SubsetTable *t,
										   const char *column);

/* run/executor.c */
typedef struct SubsetRun SubsetRun;
extern SubsetRun *subset_run_prepare(const char *funcname, SubsetPlan *plan,
									 MemoryContext cxt);
extern void subset_run_file_query(SubsetRun *run, int file, ExwiwQuery *q);
extern bool subset_run_joins_parent(SubsetRun *run, int file);
extern bool subset_run_reads_whole(SubsetRun *run, int file);
extern void subset_run_query_over(SubsetRun *run, int file, const char *sql,
								  List *extra_deps, bool extra_fragment,
								  ExwiwQuery *q);
extern List *subset_run_sequences(SubsetRun *run, int file);
extern void subset_run_release(SubsetRun *run);

/* run/delete.c: a file's delete file, for exwiw_export and the sink */
extern ExwiwStream *subset_delete_open_file(SubsetPlan *plan, SubsetRun *run,
											int file, bool server_file,
											MemoryContext cxt,
											const uint64 **statements);

/*
 * run/export.c: an export streamed, for exwiw_export (begin, next, end)
 * and for the directory sink, which prepares it and opens each file itself
 */
typedef struct SubsetExport SubsetExport;
extern SubsetRun *subset_export_prepare(const SubsetArgs *a, MemoryContext cxt,
										SubsetPlan **planp);
extern ExwiwStream *subset_export_open_file(SubsetPlan *plan, SubsetRun *run,
											int file, ExwiwSqlFormat format,
											bool server_file, int part,
											int parts, MemoryContext cxt);
extern SubsetExport *subset_export_begin(const SubsetArgs *a, MemoryContext cxt);
extern bool subset_export_next(SubsetExport *ex, text **file_name, text **chunk);
extern void subset_export_end(SubsetExport *ex);

/* subset/explain.c */
extern void subset_explain(const SubsetArgs *a, Tuplestorestate *ts,
						   TupleDesc desc);

/* plan/file_name.c: the names of the files */
extern char *exwiw_named_file(const char *prefix, int seq, int width,
							  const char *table, const char *ext);
extern char *exwiw_file_name(int seq, int width, const char *table,
							 const char *ext);
extern char *exwiw_part_file_name(const char *name, int part);

/* subset/preview.c */
extern void subset_mask_preview(Jsonb *config, const char *name, int32 nrows,
								Tuplestorestate *ts, TupleDesc desc);

/* subset/funcs.c: decoding shared with the directory sink */
extern void subset_args_export(FunctionCallInfo fcinfo, const char *fn,
							   int argoff, int ids_by_space_arg,
							   int allow_missing_arg, int deletes_arg,
							   int part_arg, SubsetArgs *a);

/* error context */

#endif							/* EXWIW_SUBSET_H */

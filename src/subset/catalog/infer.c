/*-------------------------------------------------------------------------
 *
 * catalog/infer.c
 *	  The relations real applications leave undeclared, inferred for
 *	  exwiw_config_from_catalog (safe mode for tables).
 *
 * A Rails application declares few foreign keys: a column "<singular>_id"
 * names the table "<plural>" by convention, a pair "<name>_type" and
 * "<name>_id" is a polymorphic reference whose type column holds the
 * model's class name, and an inheritance child does not inherit its
 * parent's foreign keys.  Each becomes a belongs_to written with
 * "inferred": true:
 *
 *	- "<x>_id" (the primary key too), not covered by a declared key, when a
 *	  table of the config is named plural(x) (English plurals: -ies, -es,
 *	  -s, and a few irregular ones) and has a one-column primary key of
 *	  the same type; else when every declared one-column foreign key of the
 *	  same name in other tables references one table (GitLab's group_id:
 *	  namespaces), that table;
 *	- "<x>_type" with "<x>_id": one arm per type value the table's rows
 *	  hold (read from the data, at most 100 values), mapped to a table as
 *	  Rails maps a class name (Ci::Build -> ci_builds, else the last or the
 *	  first name of the module path); a value that maps to no table whose
 *	  key fits is an arm with no table, "needs_table_decision" (the export
 *	  refuses it until someone names the table or ignores the arm);
 *	- an inheritance child: every belongs_to of its parent whose columns
 *	  it has.
 *
 * Then every table that no belongs_to ties to anything gets a decision:
 * "needs_scope_decision": true where a column looks like the key of
 * another table (ends in "_id" and is not the primary key), so that the
 * export refuses it until someone decides; else "export": "all", with the
 * reason.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"
#include "common/compat.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "utils/fmgroids.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

/*
 * subset_plural
 *		The English plural of a Rails model's singular table-name stem, as
 *		ActiveSupport's inflector forms it for the common cases.
 */
char *
subset_plural(const char *s)
{
	static const char *const irregular[][2] = {
		{"person", "people"}, {"child", "children"}, {"man", "men"},
		{"woman", "women"}, {"mouse", "mice"}, {"datum", "data"},
		{"status", "statuses"}, {"index", "indices"}, {NULL, NULL}
	};
	size_t		n = strlen(s);
	int			i;

	for (i = 0; irregular[i][0]; i++)
	{
		size_t		k = strlen(irregular[i][0]);

		if (n >= k && strcmp(s + n - k, irregular[i][0]) == 0 &&
			(n == k || s[n - k - 1] == '_'))
			return psprintf("%.*s%s", (int) (n - k), s, irregular[i][1]);
	}
	if (n > 1 && s[n - 1] == 'y' && !strchr("aeiou", s[n - 2]))
		return psprintf("%.*sies", (int) (n - 1), s);
	if ((n > 0 && strchr("sxz", s[n - 1])) ||
		(n > 1 && (strcmp(s + n - 2, "ch") == 0 || strcmp(s + n - 2, "sh") == 0)))
		return psprintf("%ses", s);
	return psprintf("%ss", s);
}

/*
 * underscore
 *		A Rails class name's table-name form: "MergeRequest" ->
 *		"merge_request", with "::" as "_" ("Ci::Build" -> "ci_build").
 */
static char *
underscore(const char *s)
{
	StringInfoData b;

	initStringInfo(&b);
	for (; *s; s++)
	{
		if (s[0] == ':' && s[1] == ':')
		{
			appendStringInfoChar(&b, '_');
			s++;
			continue;
		}
		if (*s >= 'A' && *s <= 'Z')
		{
			if (b.len > 0 && b.data[b.len - 1] != '_')
				appendStringInfoChar(&b, '_');
			appendStringInfoChar(&b, *s - 'A' + 'a');
		}
		else
			appendStringInfoChar(&b, *s);
	}
	return b.data;
}

/*
 * find_table
 *		The index among tables (sorted by config name) of the table named
 *		name in the schema of the table at `near`: its config name is name,
 *		qualified as near's is; -1 when there is none.  A binary search: the
 *		inference asks for every "_id" column of every table.
 */
static int
find_table(SubsetCatTable *tables, int n, const char *name, int near)
{
	const char *dot = strrchr(tables[near].name, '.');
	char	   *want = dot ? psprintf("%.*s.%s", (int) (dot - tables[near].name),
									  tables[near].name, name) : pstrdup(name);
	int			lo = 0,
				hi = n - 1;
	int			found = -1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = strcmp(tables[mid].name, want);

		if (c == 0)
		{
			found = mid;
			break;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	pfree(want);
	return found;
}

/*
 * subset_single_key
 *		The one primary key column of table relid and its type; NULL when
 *		its primary key is not one column.
 */
char *
subset_single_key(Oid relid, Oid *typid)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	Oid			pkoid = exwiw_primary_key_index(rel);
	char	   *name = NULL;

	if (OidIsValid(pkoid))
	{
		Relation	idx = index_open(pkoid, AccessShareLock);

		if (IndexRelationGetNumberOfKeyAttributes(idx) == 1)
		{
			AttrNumber	a = idx->rd_index->indkey.values[0];

			if (a > 0)
			{
				name = get_attname(relid, a, false);
				*typid = get_atttype(relid, a);
			}
		}
		index_close(idx, AccessShareLock);
	}
	relation_close(rel, AccessShareLock);
	return name;
}

/*
 * subset_same_key_type
 *		Can a column of type a hold the keys of a column of type b?  The
 *		same type, or two integer types (Rails made references bigint in
 *		5.1; older tables keep integer keys).
 */
bool
subset_same_key_type(Oid a, Oid b)
{
	if (a == b)
		return true;
	return (a == INT2OID || a == INT4OID || a == INT8OID) &&
		(b == INT2OID || b == INT4OID || b == INT8OID);
}

/*
 * subset_fk_covers
 *		Is column col of table relid a column of one of its foreign keys in
 *		fks (declared, or inferred so far)?
 */
bool
subset_fk_covers(List *fks, Oid relid, const char *col)
{
	ListCell   *lc;

	foreach(lc, fks)
	{
		SubsetCatalogFk *fk = lfirst(lc);
		int			k;

		if (fk->child != relid)
			continue;
		for (k = 0; k < fk->n; k++)
			if (strcmp(fk->fk[k], col) == 0)
				return true;
	}
	return false;
}

/*
 * declared_meaning
 *		A declared one-column foreign key of another table than relid whose
 *		column is named col, when every such declared key references the
 *		same parent and column (GitLab's "group_id" columns all reference
 *		namespaces); NULL when there is none, or they disagree.
 */
static SubsetCatalogFk *
declared_meaning(List *fks, Oid relid, const char *col)
{
	SubsetCatalogFk *found = NULL;
	ListCell   *lc;

	foreach(lc, fks)
	{
		SubsetCatalogFk *fk = lfirst(lc);

		if (fk->inferred || fk->n != 1 || fk->child == relid ||
			strcmp(fk->fk[0], col) != 0)
			continue;
		if (found != NULL &&
			(found->parent != fk->parent || strcmp(found->ref[0], fk->ref[0]) != 0))
			return NULL;
		found = fk;
	}
	return found;
}

/*
 * subset_infer_new_fk
 *		An inferred one-column foreign key, child.col -> parent.ref (parent
 *		InvalidOid and ref NULL: an arm whose table is not known yet).
 */
SubsetCatalogFk *
subset_infer_new_fk(Oid child, Oid parent, const char *col, const char *ref,
					const char *why)
{
	SubsetCatalogFk *fk = palloc0(sizeof(SubsetCatalogFk));

	fk->conname = NULL;
	fk->child = child;
	fk->parent = parent;
	fk->n = 1;
	fk->fk = palloc(sizeof(char *));
	fk->ref = palloc(sizeof(char *));
	fk->fk[0] = pstrdup(col);
	fk->ref[0] = ref ? pstrdup(ref) : NULL;
	fk->inferred = why;
	return fk;
}

/*
 * type_values
 *		The distinct non-NULL values of column col of table relid, at most
 *		100, sorted; read with SPI under a pinned search_path.
 */
static List *
type_values(Oid relid, const char *col)
{
	MemoryContext cxt = CurrentMemoryContext;
	List	   *vals = NIL;
	int			nest = exwiw_pin_search_path();
	char	   *q;
	uint64		i;

	q = psprintf("SELECT DISTINCT CAST(%s AS pg_catalog.text) AS v FROM ONLY %s"
				 " WHERE %s IS NOT NULL ORDER BY 1 LIMIT 100",
				 quote_identifier(col),
				 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
											get_rel_name(relid)),
				 quote_identifier(col));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(q, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the type values of a polymorphic column");
	for (i = 0; i < SPI_processed; i++)
	{
		char	   *v = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		MemoryContext old = MemoryContextSwitchTo(cxt);

		vals = lappend(vals, pstrdup(v));
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	exwiw_restore_settings(nest);
	return vals;
}

/*
 * class_table
 *		The table a Rails class name maps to: its underscored, pluralized
 *		full name, else that of its last, then its first module name; -1
 *		when none is a table.
 */
static int
class_table(SubsetCatTable *tables, int n, const char *cls, int near)
{
	char	   *u = underscore(cls);
	int			i;

	if ((i = find_table(tables, n, subset_plural(u), near)) >= 0)
		return i;
	if (strstr(cls, "::") != NULL)
	{
		const char *tail = strrchr(cls, ':') + 1;
		char	   *head = pnstrdup(cls, strstr(cls, "::") - cls);

		if ((i = find_table(tables, n, subset_plural(underscore(tail)), near)) >= 0)
			return i;
		head = underscore(head);
		if ((i = find_table(tables, n, head, near)) >= 0 ||
			(i = find_table(tables, n, subset_plural(head), near)) >= 0)
			return i;
	}
	return -1;
}

/*
 * unmapped_arm
 *		The arm of type value cls of column col of table ti that maps to no
 *		table the inference can use: pi is the table Rails' naming gives
 *		(whose key does not fit col), or -1.  It becomes a belongs_to that
 *		waits for a person ("needs_table_decision"), never a silent drop:
 *		the rows of that type would lose their parent, and the table that
 *		holds them (a model with its own self.table_name) would be exported
 *		whole as a table nothing ties.  A table named as the class's
 *		singular (Channel::Api -> channel_api) or its last name is offered
 *		in the reason, and gets a scope decision itself (maybe_type).
 */
static SubsetCatalogFk *
unmapped_arm(SubsetCatTable *tables, int n, int ti, const char *col,
			 const char *cls, int pi)
{
	SubsetCatalogFk *fk = subset_infer_new_fk(tables[ti].relid, InvalidOid, col, NULL,
											  "a polymorphic pair of columns (Rails), arms from the values of the type column");
	int			cand = -1;

	if (pi >= 0)
	{
		fk->unmapped = psprintf("the type value maps to table %s by Rails' naming, but its primary key is not one column that \"%s\" can hold: name the table that holds these rows in \"table_name\" (with \"references\" when it is not the primary key), or set \"ignore\": true",
								tables[pi].name, col);
		return fk;
	}
	if ((cand = find_table(tables, n, underscore(cls), ti)) < 0 &&
		strstr(cls, "::") != NULL)
		cand = find_table(tables, n, underscore(strrchr(cls, ':') + 1), ti);
	if (cand >= 0 && tables[cand].relid != tables[ti].relid)
	{
		tables[cand].maybe_type = cls;
		fk->unmapped = psprintf("the type value maps to no table by Rails' naming (a model with its own self.table_name?); table %s has the class's name: name the table that holds these rows in \"table_name\", or set \"ignore\": true when no table does",
								tables[cand].name);
	}
	else
		fk->unmapped = "the type value maps to no table by Rails' naming (a model with its own self.table_name?): name the table that holds these rows in \"table_name\", or set \"ignore\": true when no table does";
	return fk;
}

/*
 * infer_columns
 *		The Rails-convention edges of table ti: "<x>_id" columns, and
 *		"<x>_type"/"<x>_id" pairs.
 */
static List *
infer_columns(SubsetCatTable *tables, int n, int ti, List *fks)
{
	Oid			relid = tables[ti].relid;
	Relation	rel = relation_open(relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	List	   *out = NIL;
	int			a;

	for (a = 0; a < desc->natts; a++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, a);
		const char *col = NameStr(att->attname);
		size_t		len = strlen(col);
		char	   *stem;
		char	   *type_col;
		int			pi;

		CHECK_FOR_INTERRUPTS();
		/* a primary key "<x>_id" is one too: a one-to-one table */
		if (att->attisdropped || len <= 3 || strcmp(col + len - 3, "_id") != 0 ||
			subset_fk_covers(fks, relid, col))
			continue;
		stem = pnstrdup(col, len - 3);
		type_col = psprintf("%s_type", stem);
		if (get_attnum(relid, type_col) != InvalidAttrNumber)
		{
			ListCell   *lc;

			foreach(lc, type_values(relid, type_col))
			{
				char	   *v = lfirst(lc);
				Oid			rt;
				char	   *ref;
				SubsetCatalogFk *fk;

				pi = class_table(tables, n, v, ti);
				if (pi >= 0 && (ref = subset_single_key(tables[pi].relid, &rt)) != NULL &&
					subset_same_key_type(att->atttypid, rt))
					fk = subset_infer_new_fk(relid, tables[pi].relid, col, ref,
											 "a polymorphic pair of columns (Rails), arms from the values of the type column");
				else
					fk = unmapped_arm(tables, n, ti, col, v, pi);
				fk->type_col = type_col;
				fk->type_value = v;
				out = lappend(out, fk);
			}
			continue;
		}
		pi = find_table(tables, n, subset_plural(stem), ti);
		if (pi >= 0 && tables[pi].relid != relid)
		{
			Oid			rt;
			char	   *ref = subset_single_key(tables[pi].relid, &rt);

			if (ref != NULL && subset_same_key_type(att->atttypid, rt))
			{
				out = lappend(out, subset_infer_new_fk(relid, tables[pi].relid, col, ref,
													   "a column named as Rails names a key of that table"));
				continue;
			}
		}
		/* a name that the declared keys of other tables give one meaning */
		{
			SubsetCatalogFk *like = declared_meaning(fks, relid, col);

			if (like != NULL && like->parent != relid &&
				subset_same_key_type(att->atttypid, get_atttype(like->child, get_attnum(like->child, col))))
				out = lappend(out, subset_infer_new_fk(relid, like->parent, col, like->ref[0],
													   psprintf("other tables' foreign keys named \"%s\" all reference that table", col)));
		}
	}
	relation_close(rel, AccessShareLock);
	return out;
}

/*
 * direct_parents
 *		The inheritance parents of relid (pg_inherits; a partition's parent
 *		is not asked for: the caller passes no partitions).
 */
static List *
direct_parents(Oid relid)
{
	Relation	inh = table_open(InheritsRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *out = NIL;

	ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(inh, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
		out = lappend_oid(out, ((Form_pg_inherits) GETSTRUCT(tup))->inhparent);
	systable_endscan(scan);
	table_close(inh, AccessShareLock);
	return out;
}

/*
 * inherited
 *		The belongs_tos that inheritance child ti takes from its parents:
 *		every one (declared or inferred) whose columns the child has; a
 *		parent's reference to itself becomes the child's to the parent.
 */
static List *
inherited(SubsetCatTable *tables, int ti, List *fks)
{
	Oid			relid = tables[ti].relid;
	List	   *out = NIL;
	ListCell   *lc,
			   *lp;

	if (get_rel_relkind(relid) != RELKIND_RELATION || get_rel_relispartition(relid))
		return NIL;
	foreach(lp, direct_parents(relid))
	{
		Oid			parent = lfirst_oid(lp);

		foreach(lc, fks)
		{
			SubsetCatalogFk *fk = lfirst(lc);
			SubsetCatalogFk *c;
			int			k;
			bool		has = true;

			if (fk->child != parent || subset_fk_covers(fks, relid, fk->fk[0]) ||
				subset_fk_covers(out, relid, fk->fk[0]))
				continue;
			for (k = 0; k < fk->n; k++)
				has &= (get_attnum(relid, fk->fk[k]) != InvalidAttrNumber);
			if (!has)
				continue;
			c = palloc(sizeof(SubsetCatalogFk));
			*c = *fk;
			c->child = relid;
			c->inferred = "inherited from the parent table: an inheritance child does not inherit foreign keys";
			out = lappend(out, c);
		}
	}
	return out;
}

/*
 * subset_infer_fks
 *		The belongs_tos to infer for tables (the generated config's, n of
 *		them), given the declared foreign keys fks: Rails conventions first,
 *		then what inheritance children take from their parents.
 */
List *
subset_infer_fks(SubsetCatTable *tables, int n, List *fks)
{
	List	   *out = NIL;
	List	   *all;
	int			i;

	for (i = 0; i < n; i++)
		out = list_concat(out, infer_columns(tables, n, i, fks));
	all = list_concat(list_copy(fks), out);
	for (i = 0; i < n; i++)
		out = list_concat(out, inherited(tables, i, all));
	return out;
}

/*
 * subset_looks_like_key
 *		Does a column named col look like the key of another table (so a
 *		table holding it may belong to a tenant)?
 */
bool
subset_looks_like_key(const char *col)
{
	size_t		len = strlen(col);

	return len > 3 && strcmp(col + len - 3, "_id") == 0;
}

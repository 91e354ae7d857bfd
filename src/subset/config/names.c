/*-------------------------------------------------------------------------
 *
 * config/names.c
 *	  The names of a config resolved, for the parsers of its tables, columns
 *	  and edges: a table of the config by name, a column's attribute, a
 *	  list of columns, the unique index a column leads.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/config/config.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parser.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/syscache.h"

/*
 * subset_config_find
 *		Index of the table the config calls name, or -1.
 */
int
subset_config_find(SubsetConfig *cfg, const char *name)
{
	int			i;

	for (i = 0; i < cfg->ntables; i++)
		if (strcmp(cfg->tables[i].name, name) == 0)
			return i;
	return -1;
}

/*
 * cfg_column_attnum
 *		attnum of column name of relid, or InvalidAttrNumber; sets the type
 *		and generated flag.
 */
AttrNumber
cfg_column_attnum(Oid relid, const char *name, Oid *typid, int32 *typmod,
				  Oid *collid, char *generated, char *identity)
{
	HeapTuple	tup = SearchSysCacheAttName(relid, name);
	Form_pg_attribute att;
	AttrNumber	attnum;

	if (!HeapTupleIsValid(tup))
		return InvalidAttrNumber;
	att = (Form_pg_attribute) GETSTRUCT(tup);
	attnum = att->attnum;
	if (typid)
		*typid = att->atttypid;
	if (typmod)
		*typmod = att->atttypmod;
	if (collid)
		*collid = att->attcollation;
	if (generated)
		*generated = att->attgenerated;
	if (identity)
		*identity = att->attidentity;
	ReleaseSysCache(tup);
	return attnum > 0 ? attnum : InvalidAttrNumber;
}

/*
 * cfg_parse_cols
 *		A column or an array of columns of table t (key keypath), resolved.
 *		NULL/absent gives n = 0 when nullable.
 */
void
cfg_parse_cols(ConfigParse *p, SubsetTable *t, JsonbValue *v, const char *keypath,
			   SubsetCols *out)
{
	int			n = 0,
				i;

	memset(out, 0, sizeof(*out));
	if (v == NULL || v->type == jbvNull)
		return;
	if (v->type == jbvString)
		n = 1;
	else if (cfg_json_is_array(v) && cfg_array_length(v) > 0)
		n = cfg_array_length(v);
	else
		cfg_type_error(p, keypath, "a column name or a non-empty array of column names", v);

	out->n = n;
	out->names = palloc(sizeof(char *) * n);
	out->attnums = palloc(sizeof(AttrNumber) * n);
	out->typids = palloc(sizeof(Oid) * n);
	out->typmods = palloc(sizeof(int32) * n);
	out->collids = palloc(sizeof(Oid) * n);
	for (i = 0; i < n; i++)
	{
		JsonbValue *e = (v->type == jbvString) ? v : cfg_json_array_get(v, i);
		int			j;

		if (e->type != jbvString)
			cfg_type_error(p, keypath, "a column name or a non-empty array of column names", v);
		out->names[i] = cfg_json_string(e);
		out->attnums[i] = cfg_column_attnum(t->relid, out->names[i], &out->typids[i],
											&out->typmods[i], &out->collids[i],
											NULL, NULL);
		p->ectx.key = keypath;
		if (out->attnums[i] == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("key \"%s\" of table \"%s\" names column \"%s\", which does not exist",
							keypath, p->ectx.table, out->names[i]),
					 strcmp(p->ectx.table, t->name) != 0 ?
					 errdetail("Table \"%s\" has no such column.", t->name) : 0));
		for (j = 0; j < i; j++)
			if (strcmp(out->names[j], out->names[i]) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("key \"%s\" of table \"%s\" names column \"%s\" twice",
								keypath, t->name, out->names[i])));
	}
}

/*
 * subset_unique_index_with
 *		The name of a unique index (a primary key's included) of relation
 *		relid that holds column attnum, or NULL.
 */
char *
subset_unique_index_with(Oid relid, AttrNumber attnum)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	List	   *indexes = RelationGetIndexList(rel);
	char	   *name = NULL;
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	ir = index_open(lfirst_oid(lc), AccessShareLock);
		int			i;

		if (ir->rd_index->indisunique)
			for (i = 0; i < ir->rd_index->indnkeyatts && name == NULL; i++)
				if (ir->rd_index->indkey.values[i] == attnum)
					name = pstrdup(RelationGetRelationName(ir));
		index_close(ir, AccessShareLock);
		if (name != NULL)
			break;
	}
	list_free(indexes);
	relation_close(rel, AccessShareLock);
	return name;
}

/*-------------------------------------------------------------------------
 *
 * ident.c
 *	  The table name of a statement: the user's text split on ".", each
 *	  part quoted by the dump format's rule (sql_text.c).  A part written
 *	  in double quotes, as in SQL, may hold a "." (or begin with a quote):
 *	  "audit.log" is one name, public."audit.log" two.  Also the schema of
 *	  the extension, for SQL that calls exwiw's own functions.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

/*
 * exwiw_table_name_parts
 *		Split a table name into its parts, raw: on "." outside double
 *		quotes.  A part that begins with '"' is a quoted identifier up to
 *		its closing '"' ("" within it is one '"'), and is followed by "."
 *		or the end; any other part is taken as it is (case kept, a '"'
 *		inside it kept).  Sets parts[0..n-1] (palloc'd) and *quoted (any
 *		part quoted).  Returns n; -1 when more than max parts or a part is
 *		empty, -2 when a quote does not close or is followed by more text.
 */
int
exwiw_table_name_parts(const char *name, char **parts, int max, bool *quoted)
{
	const char *p = name;
	int			n = 0;

	*quoted = false;
	for (;;)
	{
		StringInfoData s;

		initStringInfo(&s);
		if (*p == '"')
		{
			*quoted = true;
			for (p++;; p++)
			{
				if (*p == '\0')
					return -2;
				if (*p == '"' && p[1] == '"')
					p++;
				else if (*p == '"')
					break;
				appendStringInfoChar(&s, *p);
			}
			p++;
			if (*p != '.' && *p != '\0')
				return -2;
		}
		else
			while (*p != '\0' && *p != '.')
				appendStringInfoChar(&s, *p++);
		if (s.len == 0 || n == max)
			return -1;
		parts[n++] = s.data;
		if (*p == '\0')
			return n;
		p++;					/* the "." */
	}
}

/*
 * exwiw_append_table_name
 *		Append a possibly schema-qualified table name, split into its parts
 *		by exwiw_table_name_parts, each part quoted by the rule.
 *
 * The name is the user's text, not a regclass: "billing.order" becomes
 * billing."order", "\"audit.log\"" becomes "audit.log".  An empty part
 * ("a..b", ".t", "") or a quote that does not close is refused, since it
 * can only produce a statement that does not load.
 */
void
exwiw_append_table_name(StringInfo buf, const char *table_name)
{
	int			max = strlen(table_name) + 1;
	char	  **parts = palloc(sizeof(char *) * max);
	bool		quoted;
	int			n = exwiw_table_name_parts(table_name, parts, max, &quoted);
	int			i;

	if (n == -2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("invalid table name \"%s\"", table_name),
				 errdetail("A part that begins with a double quote must end with one, before a \".\" or the end of the name."),
				 errhint("Write a quote inside a quoted part twice, as in SQL: public.\"we\"\"ird\".")));
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("invalid table name \"%s\"", table_name),
				 errdetail("The table name is split on \".\" and one of its parts is empty."),
				 errhint("Pass the name as it should appear in the output, for example \"billing.order\".")));
	for (i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoChar(buf, '.');
		exwiw_append_ident(buf, parts[i]);
		pfree(parts[i]);
	}
	pfree(parts);
}

/*
 * exwiw_extension_schema
 *		The name of the schema the extension is installed in, for SQL that
 *		calls exwiw's own functions, schema-qualified.
 */
char *
exwiw_extension_schema(void)
{
	Oid			extoid = get_extension_oid("exwiw", false);
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			nsp = InvalidOid;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extoid));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (!OidIsValid(nsp))
		elog(ERROR, "could not find the schema of extension exwiw");
	return get_namespace_name(nsp);
}

/*-------------------------------------------------------------------------
 *
 * config/json.c
 *	  jsonb access for the config parser: objects, arrays, strings, the
 *	  allowed keys, and the errors that name the key of a table's config.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/config/config.h"

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
#include "utils/syscache.h"

/*
 * cfg_json_type_name
 *		The JSON type of v, as jsonb_typeof() names it.
 */
const char *
cfg_json_type_name(JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			return "null";
		case jbvString:
			return "string";
		case jbvNumeric:
			return "number";
		case jbvBool:
			return "boolean";
		case jbvBinary:
			return JsonContainerIsArray(v->val.binary.data) ? "array" : "object";
		default:
			return "object";
	}
}

bool
cfg_json_is_object(JsonbValue *v)
{
	return v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data);
}

bool
cfg_json_is_array(JsonbValue *v)
{
	return v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data);
}

char *
cfg_json_string(JsonbValue *v)
{
	Assert(v->type == jbvString);
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/*
 * cfg_json_get
 *		The value of key in object v, or NULL when absent.
 */
JsonbValue *
cfg_json_get(JsonbValue *v, const char *key)
{
	Assert(cfg_json_is_object(v));
	return getKeyJsonValueFromContainer(v->val.binary.data, key, strlen(key),
										NULL);
}

/* Number of elements of array v. */
int
cfg_array_length(JsonbValue *v)
{
	return JsonContainerSize(v->val.binary.data);
}

JsonbValue *
cfg_json_array_get(JsonbValue *v, int i)
{
	return getIthJsonbValueFromContainer(v->val.binary.data, i);
}

/*
 * cfg_allowed_list
 *		"a, b, c" from a NULL-terminated key list, for hints.
 */
char *
cfg_allowed_list(const char *const *keys)
{
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	for (i = 0; keys[i]; i++)
		appendStringInfo(&s, "%s%s", i ? ", " : "", keys[i]);
	return s.data;
}

/*
 * cfg_check_keys
 *		Error out on a key of object v that is not in allowed.  prefix names
 *		where the object is ("" for a table, "columns[2]." for a column).
 */
void
cfg_check_keys(ConfigParse *p, JsonbValue *v, const char *const *allowed,
			   const char *prefix)
{
	JsonbIterator *it = JsonbIteratorInit(v->val.binary.data);
	JsonbValue	k;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		char	   *key;
		int			i;
		bool		ok = false;

		if (tok != WJB_KEY)
			continue;
		key = cfg_json_string(&k);
		for (i = 0; allowed[i]; i++)
			ok |= (strcmp(key, allowed[i]) == 0);
		if (!ok)
		{
			snprintf(p->keybuf, sizeof(p->keybuf), "%s%s", prefix, key);
			p->ectx.key = p->keybuf;
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown key \"%s%s\" in the config of table \"%s\"",
							prefix, key, p->ectx.table),
					 errhint("Valid keys%s%.*s are: %s.",
							 *prefix ? " in " : "",
							 *prefix ? (int) strlen(prefix) - 1 : 0, prefix,
							 cfg_allowed_list(allowed))));
		}
	}
}

/*
 * cfg_type_error
 *		Error out: key of the current table has the wrong JSON type.
 */
void
cfg_type_error(ConfigParse *p, const char *key, const char *want, JsonbValue *v)
{
	p->ectx.key = key;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("key \"%s\" of table \"%s\" must be %s, not %s",
					key, p->ectx.table, want, cfg_json_type_name(v))));
}

/*
 * cfg_get_string
 *		The string value of key in object v; NULL when absent or null if
 *		nullable, else an error.
 */
char *
cfg_get_string(ConfigParse *p, JsonbValue *obj, const char *key,
			   const char *keypath, bool nullable)
{
	JsonbValue *v = cfg_json_get(obj, key);

	if (v == NULL || v->type == jbvNull)
	{
		if (nullable)
			return NULL;
		p->ectx.key = keypath;
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key \"%s\" of table \"%s\" is missing", keypath,
						p->ectx.table)));
	}
	if (v->type != jbvString)
		cfg_type_error(p, keypath, nullable ? "a string or null" : "a string", v);
	return cfg_json_string(v);
}

/*
 * cfg_get_bool
 *		The boolean value of key in object v; false when absent or null.
 */
bool
cfg_get_bool(ConfigParse *p, JsonbValue *obj, const char *key, const char *keypath)
{
	JsonbValue *v = cfg_json_get(obj, key);

	if (v == NULL || v->type == jbvNull)
		return false;
	if (v->type != jbvBool)
		cfg_type_error(p, keypath, "a boolean or null", v);
	return v->val.boolean;
}

/*
 * cfg_parse_positive
 *		A positive integer at key (bulk_insert_chunk_size, batch_scope.size),
 *		or null for dflt.
 */
int
cfg_parse_positive(ConfigParse *p, JsonbValue *v, const char *key, int dflt)
{
	char	   *s;
	char	   *end;
	long		n;

	if (v == NULL || v->type == jbvNull)
		return dflt;
	if (v->type != jbvNumeric)
		cfg_type_error(p, key, "a positive integer", v);
	s = DatumGetCString(DirectFunctionCall1(numeric_out,
											NumericGetDatum(v->val.numeric)));
	errno = 0;
	n = strtol(s, &end, 10);
	if (*end == '.')
		for (end++; *end == '0'; end++)
			;
	if (*end != '\0' || errno != 0 || n < 1 || n > PG_INT32_MAX)
	{
		p->ectx.key = key;
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key \"%s\" of table \"%s\" must be a positive integer, not %s",
						key, p->ectx.table, s)));
	}
	return (int) n;
}

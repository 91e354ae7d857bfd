/*-------------------------------------------------------------------------
 *
 * config/config.h
 *	  The config parser's state and helpers, shared by the files that check
 *	  a config and resolve it into a SubsetConfig (subset.h has the
 *	  interface):
 *
 *	config/parse.c			the tables: names, keys, scope, the driver
 *	config/json.c	jsonb access: keys, types, strings, the errors
 *							that name a key
 *	config/columns.c	columns: templates, raw_sql, fake data, and
 *							what a mask may copy
 *	config/masks.c	the masks that are SQL functions
 *	config/edges.c	belongs_tos, reverse scopes, batch scopes
 *	config/checks.c	the checks after parsing: masked keys,
 *							undecided tables
 *
 * Not part of the extension's interface outside the parser.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_SUBSET_CONFIG_H
#define EXWIW_SUBSET_CONFIG_H

#include "subset/subset.h"
#include "common/compat.h"

/* State of one parse, for error messages. */
typedef struct ConfigParse
{
	const char *funcname;
	SubsetErrorContext ectx;
	ErrorContextCallback errcb;
	char		keybuf[128];
} ConfigParse;

/* config/names.c */
extern AttrNumber cfg_column_attnum(Oid relid, const char *name, Oid *typid,
									int32 *typmod, Oid *collid, char *generated,
									char *identity);
extern void cfg_parse_cols(ConfigParse *p, SubsetTable *t, JsonbValue *v,
						   const char *keypath, SubsetCols *out);

/* config/json.c */
extern const char *cfg_json_type_name(JsonbValue *v);
extern bool cfg_json_is_object(JsonbValue *v);
extern bool cfg_json_is_array(JsonbValue *v);
extern char *cfg_json_string(JsonbValue *v);
extern JsonbValue *cfg_json_get(JsonbValue *v, const char *key);
extern int	cfg_array_length(JsonbValue *v);
extern JsonbValue *cfg_json_array_get(JsonbValue *v, int i);
extern char *cfg_allowed_list(const char *const *keys);
extern void cfg_check_keys(ConfigParse *p, JsonbValue *v,
						   const char *const *allowed, const char *prefix);
EXWIW_NORETURN_BEGIN extern void cfg_type_error(ConfigParse *p, const char *key,
												const char *want,
												JsonbValue *v) EXWIW_NORETURN_END;
extern char *cfg_get_string(ConfigParse *p, JsonbValue *obj, const char *key,
							const char *keypath, bool nullable);
extern bool cfg_get_bool(ConfigParse *p, JsonbValue *obj, const char *key,
						 const char *keypath);
extern int	cfg_parse_positive(ConfigParse *p, JsonbValue *v, const char *key,
							   int dflt);

/* config/columns.c */
extern void cfg_parse_columns(ConfigParse *p, SubsetTable *t, JsonbValue *v);

/* config/edges.c */
extern void cfg_parse_reverse_and_batch(ConfigParse *p, SubsetConfig *cfg,
										int idx, JsonbValue *tv);
extern void cfg_parse_belongs_tos(ConfigParse *p, SubsetConfig *cfg, int idx,
								  JsonbValue *tv, List **edges);

#endif							/* EXWIW_SUBSET_CONFIG_H */

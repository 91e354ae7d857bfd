/*-------------------------------------------------------------------------
 *
 * common/extjson/extjson.h
 *	  The backend-independent core of exwiw's Relaxed Extended JSON emitter.
 *
 * Everything declared here builds both in the server and in a frontend
 * program (define FRONTEND and link libpgcommon and libpgport): the fuzz
 * target and the libbson check under test/extjson/ use it that way.  It
 * writes the byte format of the Ruby bson gem,
 *
 *		JSON.generate(value.as_extended_json(mode: :relaxed))
 *
 * as doc/extended-json.md describes it.  This core is kept apart from the
 * backend on purpose: the fuzz target (test/extjson/fuzz) links exactly
 * these files, so what it tests is what the server runs.
 *
 *	common/extjson/format.c	strings, floats, Decimal128, base64, dates, ObjectIds
 *	common/extjson/tree.c		the document tree (ExjNode) and its builder
 *	common/extjson/parse.c		json text through the server's JSON parser: into a
 *						tree, or straight out when it holds no wrapper
 *	common/extjson/emit.c		the emitter: a tree written as Relaxed Extended JSON
 *	common/extjson/wrappers.c	the $-wrapper rules, which the emitter applies to
 *						objects (common/extjson/emit.h is their shared interface)
 *
 * The backend layers on top: extjson/datum.c (json, jsonb and the errors),
 * extjson/row.c (typed rows), extjson/lines.c (the JSON Lines writer) and
 * extjson/funcs.c (the SQL functions).
 *
 * Functions that can fail on bad input return false and describe the
 * problem in an ExjError; the backend turns that into an ereport.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXTJSON_H
#define EXTJSON_H

#include "lib/stringinfo.h"

/* What kind of mistake an ExjError reports (mapped to an SQLSTATE). */
typedef enum ExjErrorKind
{
	EXJ_ERR_NONE = 0,
	EXJ_ERR_SYNTAX,				/* malformed wrapper, bad text */
	EXJ_ERR_RANGE,				/* number or date BSON cannot hold */
	EXJ_ERR_UNSUPPORTED			/* valid, but BSON has no such value */
} ExjErrorKind;

typedef struct ExjError
{
	ExjErrorKind kind;
	char		msg[256];		/* what is wrong, without the path */
	StringInfoData path;		/* where: "$.a.b[2]"; data NULL if unset */
} ExjError;

/* common/extjson/format.c */
extern void exj_error_set(ExjError *err, ExjErrorKind kind,
						  const char *fmt,...) pg_attribute_printf(3, 4);
extern void exj_append_string(StringInfo buf, const char *s, int len);
extern int	exj_format_double(double d, char *out);
extern void exj_append_double(StringInfo buf, double d);
extern bool exj_append_int_text(StringInfo buf, const char *s, int len,
								ExjError *err);
extern bool exj_append_decimal128(StringInfo buf, const char *s, int len,
								  ExjError *err);
extern void exj_append_base64(StringInfo buf, const unsigned char *data,
							  int len);
extern bool exj_base64_decode(const char *s, int len, StringInfo out);
extern void exj_append_binary(StringInfo buf, const unsigned char *data,
							  int len, int subtype);
extern bool exj_is_oid_text(const char *s, int len);
extern void exj_append_oid(StringInfo buf, const char *hex24);
extern void exj_append_date(StringInfo buf, int64 secs, int32 usec);
extern void exj_append_date_usec(StringInfo buf, int64 usec);
extern bool exj_parse_iso_date(const char *s, int len, int64 *usec);

/* common/extjson/tree.c: the document tree */
typedef enum ExjKind
{
	EXJ_NULL,
	EXJ_TRUE,
	EXJ_FALSE,
	EXJ_NUMBER,					/* str holds the number's text */
	EXJ_STRING,					/* str holds the UTF-8 text */
	EXJ_ARRAY,
	EXJ_OBJECT
} ExjKind;

typedef struct ExjNode ExjNode;

struct ExjNode
{
	ExjKind		kind;
	int			len;			/* bytes of str, or number of children */
	const char *str;			/* NUMBER and STRING */
	ExjNode   **items;			/* ARRAY elements, OBJECT values */
	const char **keys;			/* OBJECT keys (not NUL-terminated) */
	int		   *keylens;
	int			cap;			/* allocated children, while building */
};

/* Builds a tree from events; all memory comes from palloc. */
typedef struct ExjBuilder
{
	ExjNode    *root;
	ExjNode   **stack;			/* open containers */
	int			depth;
	int			stack_cap;
	const char *pending_key;	/* key waiting for its value */
	int			pending_keylen;
} ExjBuilder;

extern void exj_builder_init(ExjBuilder *b);
extern void exj_build_open(ExjBuilder *b, ExjKind kind);
extern void exj_build_close(ExjBuilder *b);
extern void exj_build_key(ExjBuilder *b, const char *key, int len);
extern void exj_build_scalar(ExjBuilder *b, ExjKind kind, const char *s,
							 int len);
extern void exj_tree_free(ExjNode *node);

/* One step of a value's path from the document's root, on the C stack. */
typedef struct ExjPathSeg
{
	const struct ExjPathSeg *up;
	const char *key;			/* NULL for an array index */
	int			keylen;
	int			index;
} ExjPathSeg;

/* common/extjson/parse.c */
extern bool exj_parse_json_text(const char *json, int len, ExjNode **root,
								ExjError *err);
extern bool exj_emit_plain_json_text(StringInfo buf, const char *json, int len);

/* common/extjson/emit.c */
extern void exj_append_path(StringInfo s, const char *root,
							const ExjPathSeg *path);
extern bool exj_emit(StringInfo buf, ExjNode *node, const char *root_path,
					 ExjError *err);

#endif							/* EXTJSON_H */

/*-------------------------------------------------------------------------
 *
 * common/extjson/emit.h
 *	  The interface between the emitter (common/extjson/emit.c) and the wrapper
 *	  rules (common/extjson/wrappers.c): the emitter writes scalars, arrays and
 *	  ordinary documents and hands every object to the rules, which call
 *	  back for the values inside.  Not used outside these two files.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXTJSON_EMIT_H
#define EXTJSON_EMIT_H

#include "common/extjson/extjson.h"

typedef struct ExjEmitState
{
	StringInfo	buf;
	ExjError   *err;
	const char *root;			/* how the path starts, "$" */
} ExjEmitState;

/* common/extjson/emit.c */
extern bool exj_fail(ExjEmitState *st, const ExjPathSeg *path, ExjErrorKind kind,
					 const char *fmt,...) pg_attribute_printf(4, 5);
extern bool exj_fail_again(ExjEmitState *st, const ExjPathSeg *path,
						   const char *prefix);
extern bool exj_emit_node(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path);
extern bool exj_emit_number(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path);
extern bool exj_emit_plain(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path,
						   bool first, bool skip_ref_id);

/* common/extjson/wrappers.c */
extern bool exj_key_is(const char *key, int len, const char *word);
extern int	exj_find_key(ExjNode *node, const char *key);
extern bool exj_is_integer_text(ExjNode *node);
extern bool exj_emit_object(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path);

#endif							/* EXTJSON_EMIT_H */

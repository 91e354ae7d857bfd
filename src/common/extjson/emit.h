/*-------------------------------------------------------------------------
 *
 * common/extjson/emit.h
 *	  The interface between the emitter's recursion and wrapper rules
 *	  (common/extjson/wrappers.c) and its leaves (common/extjson/emit.c:
 *	  paths, errors, numbers), which call nothing above them.  Not used
 *	  outside these two files.
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
extern bool exj_emit_number(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path);
extern bool exj_is_integer_text(ExjNode *node);

/* common/extjson/wrappers.c */
extern bool exj_emit_node(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path);
extern bool exj_emit_plain(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path,
						   bool first, bool skip_ref_id);
extern bool exj_key_is(const char *key, int len, const char *word);
extern int	exj_find_key(ExjNode *node, const char *key);
extern bool exj_emit_object(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path);

#endif							/* EXTJSON_EMIT_H */

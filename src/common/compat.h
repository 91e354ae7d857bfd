/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Every difference between the PostgreSQL major versions that exwiw
 *	  supports (15 to 18), in one place.
 *
 * No other file may test PG_VERSION_NUM.  Where an API changed, this header
 * gives the rest of exwiw one spelling (a type, a macro or an inline
 * wrapper) that means the right thing on every supported server, so that
 * the code that uses it reads the same everywhere.  Each section names the
 * release that made the change.
 *
 * It is included by backend code and by the frontend fuzz target
 * (test/extjson/fuzz), so it uses nothing that needs a running backend.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_COMPAT_H
#define EXWIW_COMPAT_H

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"

#if PG_VERSION_NUM < 150000
#error "exwiw needs PostgreSQL 15 or later"
#endif

/* ---------------------------------------------------------------------
 * JSON parser semantic actions (common/jsonapi.h)
 *
 * PostgreSQL 16 made every callback of a JsonSemAction return a
 * JsonParseErrorType (JSON_SUCCESS to go on); before, they return void.
 * Declare a callback as returning ExwiwJsonActionResult and end it with
 * "return EXWIW_JSON_ACTION_DONE;".
 * ---------------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 160000
typedef JsonParseErrorType ExwiwJsonActionResult;
#define EXWIW_JSON_ACTION_DONE	JSON_SUCCESS
#else
typedef void ExwiwJsonActionResult;
#define EXWIW_JSON_ACTION_DONE
#endif

/* ---------------------------------------------------------------------
 * JSON lexer contexts (common/jsonapi.h)
 *
 * PostgreSQL 17 made makeJsonLexContextCstringLen() fill in a struct that
 * the caller may provide (taking a const, size_t input) and added
 * freeJsonLexContext(), which frees what the context allocated.  Before, the
 * context is always palloc'd, and its caller frees it and its de-escaping
 * buffer (strval) by hand.
 * ---------------------------------------------------------------------
 */

/*
 * exwiw_json_lex_make
 *		A lexer over len bytes of UTF-8 json text, de-escaping strings when
 *		need_escapes.  space is a struct that the context may live in (from
 *		PostgreSQL 17 on); free the result with exwiw_json_lex_free().
 */
static inline JsonLexContext *
exwiw_json_lex_make(JsonLexContext *space, const char *json, int len,
					bool need_escapes)
{
#if PG_VERSION_NUM >= 170000
	return makeJsonLexContextCstringLen(space, json, (size_t) len, PG_UTF8,
										need_escapes);
#else
	return makeJsonLexContextCstringLen((char *) json, len, PG_UTF8,
										need_escapes);
#endif
}

/*
 * exwiw_json_lex_free
 *		Free what exwiw_json_lex_make() allocated.
 */
static inline void
exwiw_json_lex_free(JsonLexContext *lex)
{
#if PG_VERSION_NUM >= 170000
	freeJsonLexContext(lex);
#else
	if (lex->strval)
	{
		pfree(lex->strval->data);
		pfree(lex->strval);
	}
	pfree(lex);
#endif
}

/* ---------------------------------------------------------------------
 * Executor (executor/executor.h)
 *
 * PostgreSQL 18 dropped ExecutorRun()'s execute_once argument.  exwiw runs
 * a query in several calls, so it is never "once".
 * ---------------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 180000
#define exwiw_executor_run(qd, dir, count) ExecutorRun((qd), (dir), (count))
#else
#define exwiw_executor_run(qd, dir, count) ExecutorRun((qd), (dir), (count), false)
#endif

/* ---------------------------------------------------------------------
 * btree (access/nbtree.h)
 *
 * PostgreSQL 16 gave _bt_getroot() the heap relation, which only a root
 * being created (BT_WRITE) needs; a read passes none.
 * ---------------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 160000
#define exwiw_bt_getroot(rel) _bt_getroot((rel), NULL, BT_READ)
#else
#define exwiw_bt_getroot(rel) _bt_getroot((rel), BT_READ)
#endif

/* ---------------------------------------------------------------------
 * Plans (nodes/plannodes.h)
 *
 * PostgreSQL 18 keeps an Append's or MergeAppend's run-time partition
 * pruning in the plan's list, by index (-1: none); before, as a pointer.
 * ---------------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 180000
#define exwiw_plan_prunes(node) ((node)->part_prune_index >= 0)
#else
#define exwiw_plan_prunes(node) ((node)->part_prune_info != NULL)
#endif

/* ---------------------------------------------------------------------
 * Relation cache (utils/relcache.h)
 *
 * PostgreSQL 18 gave RelationGetPrimaryKeyIndex() a deferrable_ok argument.
 * Before, a DEFERRABLE primary key is never reported; false keeps that.
 * ---------------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 180000
#define exwiw_primary_key_index(rel) RelationGetPrimaryKeyIndex((rel), false)
#else
#define exwiw_primary_key_index(rel) RelationGetPrimaryKeyIndex(rel)
#endif

/* ---------------------------------------------------------------------
 * base64 (common/base64.h)
 *
 * PostgreSQL 18 takes the bytes to encode as uint8 (before: char).
 * ---------------------------------------------------------------------
 */
#include "common/base64.h"
#if PG_VERSION_NUM >= 180000
#define exwiw_b64_encode(src, len, dst, dstlen) \
	pg_b64_encode((const uint8 *) (src), (len), (dst), (dstlen))
#else
#define exwiw_b64_encode(src, len, dst, dstlen) \
	pg_b64_encode((const char *) (src), (len), (dst), (dstlen))
#endif

/*
 * A function that does not return (it ereports), declared in a header:
 * 18 spells it pg_noreturn before the declaration, older majors
 * pg_attribute_noreturn() after it.
 */
#if PG_VERSION_NUM >= 180000
#define EXWIW_NORETURN_BEGIN pg_noreturn
#define EXWIW_NORETURN_END
#else
#define EXWIW_NORETURN_BEGIN
#define EXWIW_NORETURN_END pg_attribute_noreturn()
#endif

#endif							/* EXWIW_COMPAT_H */

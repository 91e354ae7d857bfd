/*-------------------------------------------------------------------------
 *
 * common/extjson/tree.c
 *	  The document tree: a JSON value built from events (open, key, scalar,
 *	  close) into ExjNodes, because whether an object is a wrapper such as
 *	  {"$oid": ...} depends on all of its keys.  The events come from a
 *	  jsonb iterator (extjson/datum.c) or from json text (common/extjson/parse.c).
 *	  Part of the frontend-buildable core (common/extjson/extjson.h).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#include "miscadmin.h"
#endif

#include "common/extjson/extjson.h"

/* ---------------------------------------------------------------------
 * Building
 * ---------------------------------------------------------------------
 */

/*
 * exj_builder_init
 *		Start an empty tree.
 */
void
exj_builder_init(ExjBuilder *b)
{
	memset(b, 0, sizeof(ExjBuilder));
}

/*
 * attach
 *		Add node as the next child of the innermost open container (with the
 *		pending key when that is an object), or make it the root.
 */
static void
attach(ExjBuilder *b, ExjNode *node)
{
	ExjNode    *parent;

	if (b->depth == 0)
	{
		if (b->root == NULL)
			b->root = node;
		return;
	}
	parent = b->stack[b->depth - 1];
	if (parent->len == parent->cap)
	{
		int			cap = parent->cap ? parent->cap * 2 : 4;

		if (parent->cap == 0)
		{
			parent->items = palloc(cap * sizeof(ExjNode *));
			if (parent->kind == EXJ_OBJECT)
			{
				parent->keys = palloc(cap * sizeof(char *));
				parent->keylens = palloc(cap * sizeof(int));
			}
		}
		else
		{
			parent->items = repalloc(parent->items, cap * sizeof(ExjNode *));
			if (parent->kind == EXJ_OBJECT)
			{
				parent->keys = repalloc(parent->keys, cap * sizeof(char *));
				parent->keylens = repalloc(parent->keylens, cap * sizeof(int));
			}
		}
		parent->cap = cap;
	}
	if (parent->kind == EXJ_OBJECT)
	{
		parent->keys[parent->len] = b->pending_key ? b->pending_key : "";
		parent->keylens[parent->len] = b->pending_key ? b->pending_keylen : 0;
		b->pending_key = NULL;
	}
	parent->items[parent->len++] = node;
}

/*
 * exj_build_open
 *		Start an object or array (kind) at the current position.
 */
void
exj_build_open(ExjBuilder *b, ExjKind kind)
{
	ExjNode    *node = palloc0(sizeof(ExjNode));

	node->kind = kind;
	attach(b, node);
	if (b->depth == b->stack_cap)
	{
		b->stack_cap = b->stack_cap ? b->stack_cap * 2 : 16;
		b->stack = b->stack ? repalloc(b->stack, b->stack_cap * sizeof(ExjNode *)) :
			palloc(b->stack_cap * sizeof(ExjNode *));
	}
	b->stack[b->depth++] = node;
}

/*
 * exj_build_close
 *		End the innermost open object or array.
 */
void
exj_build_close(ExjBuilder *b)
{
	if (b->depth > 0)
		b->depth--;
}

/*
 * exj_build_key
 *		Set the key of the next value in the open object.  The key is not
 *		copied: it must live as long as the tree.
 */
void
exj_build_key(ExjBuilder *b, const char *key, int len)
{
	b->pending_key = key;
	b->pending_keylen = len;
}

/*
 * exj_build_scalar
 *		Add a scalar.  For NUMBER and STRING, s (len bytes, followed by a NUL
 *		for NUMBER) is not copied: it must live as long as the tree.
 */
void
exj_build_scalar(ExjBuilder *b, ExjKind kind, const char *s, int len)
{
	ExjNode    *node = palloc0(sizeof(ExjNode));

	node->kind = kind;
	node->str = s;
	node->len = len;
	attach(b, node);
}

/*
 * exj_tree_free
 *		Free a tree built by exj_parse_json_text(), strings included.  (In
 *		the backend, trees simply go with their memory context.)
 */
void
exj_tree_free(ExjNode *node)
{
	int			i;

	if (node == NULL)
		return;
	if (node->kind == EXJ_ARRAY || node->kind == EXJ_OBJECT)
	{
		for (i = 0; i < node->len; i++)
		{
			exj_tree_free(node->items[i]);
			if (node->kind == EXJ_OBJECT)
				pfree((char *) node->keys[i]);
		}
		if (node->items)
			pfree(node->items);
		if (node->keys)
			pfree(node->keys);
		if (node->keylens)
			pfree(node->keylens);
	}
	else if (node->str)
		pfree((char *) node->str);
	pfree(node);
}

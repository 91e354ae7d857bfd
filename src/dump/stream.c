/*-------------------------------------------------------------------------
 *
 * stream.c
 *	  The streaming engine: one query, one cursor, rows formatted straight
 *	  from the executor's slots into text chunks.
 *
 * A stream is opened on a query and a writer (see exwiw.h).  Each call to
 * exwiw_stream_next() resumes the query's portal with a DestReceiver that
 * hands every slot to the writer, and returns one chunk: a text value of
 * whole lines that ends only between rows.  Joining the chunks with "\n"
 * gives the writer's output byte for byte.
 *
 * Memory: a row's temporary allocations live in a context reset per row,
 * and the chunk text lives in one of two buffers used in turn, so at any
 * time the stream holds at most the chunk it returned last (which the
 * caller may still be reading) and the one it is filling.  Neither grows
 * with the number of rows: a chunk closes as soon as it holds chunk_bytes
 * of text, so it is at most chunk_bytes plus one row.
 *
 * How a chunk closes: when the row that follows a full chunk arrives, the
 * receiver finishes the full chunk (the writer's "between" text), starts the
 * other buffer with the new row, and asks the executor to stop.  The plan is
 * then suspended after that row, and the next call's ExecutorRun() goes on
 * with the following one.
 *
 * The executor is the stream's own, as a lazily evaluated SQL function's is
 * (functions.c): no portal, so no cursor in pg_cursors that another command
 * could move, close or replace.  Its resources belong to a resource owner of
 * the stream's, a child of the transaction's, so that a subtransaction
 * ending in between (an EXCEPTION block, ROLLBACK TO SAVEPOINT) does not
 * take them away.  A stream opened inside a subtransaction that is then
 * rolled back may reference objects that went with it: it is marked broken
 * (by a subtransaction callback over a list of open streams) and refuses to
 * go on.  Cleanup is by callbacks: the consumer's ExprContext shutdown closes
 * the executor when it stops early, a memory-context callback takes the
 * stream off the list, and transaction abort releases the resource owner.
 *
 * Part of the output (part => k, parts => n): the stream first counts the
 * query's rows (SELECT count(*) FROM (query), its own executor on the same
 * snapshot), then reads the query again, skipping the rows before its part
 * without formatting them and stopping at the first row after it.  Part k
 * holds rows [(k - 1) N / n, k N / n) of N, numbered as in the whole output,
 * so the writer frames them as there: the prologue and a statement header
 * come where the whole output has them, and a part that is not the last
 * ends with the text that follows its last row there ("," or ";") instead of
 * the writer's finish.  The parts' chunks, each followed by "\n", concatenate
 * to the whole output byte for byte, provided the query returns its rows in
 * the same order each time (an ORDER BY on a unique key; exwiw's own
 * queries have one).  A count that the reading does not match is an error.
 *
 * Pieces (exwiw_stream_set_split_rows, not with parts): the rows are read once, and
 * every N rows the writer ends the output as if it were whole (the
 * finish_piece callback: the last piece alone gets the full finish, with
 * the setval lines), the chunk is closed, and the next row starts a new
 * output, numbered from 0 again, so that it gets its own prologue and
 * statement headers.  Every chunk belongs to one piece
 * (exwiw_stream_piece), and each piece loads on its own.
 *
 * A held cursor (DECLARE ... WITH HOLD) works: at COMMIT its query runs
 * again from the start into the cursor's store, which opens a new stream.
 *
 * Safety: the query is checked to be a single read-only SELECT, run with
 * the caller's privileges and the caller's snapshot, and executed with
 * XactReadOnly set, so volatile functions inside it cannot write either.
 * For a query exwiw writes itself, the search_path is pinned while it is
 * parsed and planned.  When the rows hold masked values, an error raised
 * while reading them is replaced by one that names the table and the masked
 * columns and carries no value.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "access/xact.h"
#include "common/compat.h"
#include "executor/executor.h"
#include "lib/ilist.h"
#include "miscadmin.h"
#include "nodes/params.h"
#include "parser/parser.h"
#include "tcop/dest.h"
#include "tcop/tcopprot.h"
#include "tcop/utility.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

/* A DestReceiver that feeds slots to a stream's writer. */
typedef struct StreamReceiver
{
	DestReceiver pub;
	ExwiwStream *stream;
} StreamReceiver;

struct ExwiwStream
{
	const char *funcname;
	const char *context;		/* error context line */
	ExwiwWriter *writer;
	MemoryContext cxt;			/* the stream's lifetime */
	MemoryContext rowcxt;		/* reset after every row */
	QueryDesc  *qd;				/* the executor, or NULL once closed */
	ResourceOwner owner;		/* the executor's resources */
	SubTransactionId subid;		/* subtransaction the stream belongs to */
	bool		broken;			/* that subtransaction was rolled back */
	dlist_node	node;			/* in open_streams while open */
	bool		listed;
	int			chunk_bytes;
	const char *error_table;	/* hide values of errors: table, or NULL */
	const char *masked_columns;
	const char *error_keys;		/* ... the config keys its query evaluates */

	StringInfoData bufs[2];		/* chunk buffers, used in turn */
	int			cur;			/* buffer being filled */
	int			ready;			/* buffer closed by the receiver */
	bool		stopped;		/* receiver stopped the run: chunk ready */
	bool		exhausted;		/* cursor returned its last row */
	bool		finished;		/* last chunk returned */
	uint64		nrows;			/* rows read so far (formatted from lo on) */

	/* part of the output: rows [lo, hi) of total (else 0, UINT64_MAX, 0) */
	int			part;
	int			parts;
	uint64		lo;
	uint64		hi;
	uint64		total;
	bool		part_ended;		/* a row after the part came: stopped there */
	uint64		counted;		/* the count query's result */

	/* pieces of split_rows rows (else 0) */
	uint64		split_rows;
	uint64		piece_start;	/* row number of the current piece's first */
	int			piece;			/* piece being formatted in bufs[cur] */
	int			ready_piece;	/* piece of bufs[ready] */
	int			returned_piece; /* piece of the chunk last returned */

	StreamReceiver receiver;
};

/*
 * chunk_reset
 *		Empty a chunk buffer, leaving room for the varlena header in front.
 *
 * A buffer that grew far beyond the chunk size (a very wide row) gives its
 * memory back instead of keeping it for the rest of the stream.
 */
static void
chunk_reset(ExwiwStream *s, StringInfo buf)
{
	if (buf->data == NULL || buf->maxlen > 4 * (s->chunk_bytes + VARHDRSZ) + 65536)
	{
		MemoryContext old = MemoryContextSwitchTo(s->cxt);

		if (buf->data)
			pfree(buf->data);
		initStringInfo(buf);
		MemoryContextSwitchTo(old);
	}
	resetStringInfo(buf);
	appendStringInfoSpaces(buf, VARHDRSZ);
}

/*
 * chunk_text
 *		Turn a chunk buffer into the text datum that is returned.
 */
static text *
chunk_text(StringInfo buf)
{
	Assert(buf->len > VARHDRSZ);
	SET_VARSIZE(buf->data, buf->len);
	return (text *) buf->data;
}

/*
 * stream_receive
 *		DestReceiver callback: format one row into the current chunk.
 *
 * Returns false (stop the executor) when this row had to start a new chunk
 * because the current one was full; the full one is then in bufs[ready].
 */
static bool
stream_receive(TupleTableSlot *slot, DestReceiver *self)
{
	ExwiwStream *s = ((StreamReceiver *) self)->stream;
	StringInfo	buf = &s->bufs[s->cur];
	bool		keep_going = true;
	MemoryContext old;

	CHECK_FOR_INTERRUPTS();
	Assert(!s->stopped);

	/* a row before the part: skipped, not formatted */
	if (s->nrows < s->lo)
	{
		s->nrows++;
		return true;
	}
	/* the first row after the part: end the part as the whole output goes on */
	if (s->nrows >= s->hi)
	{
		if (s->nrows > s->lo && s->writer->between)
		{
			old = MemoryContextSwitchTo(s->rowcxt);
			s->writer->between(s->writer, buf, s->nrows);
			MemoryContextSwitchTo(old);
			MemoryContextReset(s->rowcxt);
		}
		s->part_ended = true;
		return false;
	}

	old = MemoryContextSwitchTo(s->rowcxt);
	if (s->split_rows > 0 && s->nrows - s->piece_start == s->split_rows)
	{
		/* this row starts a piece: end the current one and its chunk */
		if (s->writer->finish_piece)
			s->writer->finish_piece(s->writer, buf, s->split_rows);
		else if (s->writer->finish)
			s->writer->finish(s->writer, buf, s->split_rows);
		s->ready = s->cur;
		s->ready_piece = s->piece;
		s->cur = 1 - s->cur;
		buf = &s->bufs[s->cur];
		chunk_reset(s, buf);
		s->piece++;
		s->piece_start = s->nrows;
		keep_going = false;
	}
	else if (s->nrows > s->lo)
	{
		if (s->writer->between)
			s->writer->between(s->writer, buf, s->nrows - s->piece_start);
		if (buf->len - VARHDRSZ >= s->chunk_bytes)
		{
			/*
			 * Close this chunk.  The other buffer held the chunk returned by
			 * the previous call, which the caller is done with by now.  A
			 * closed chunk holds at least one whole row.
			 */
			Assert(buf->len > VARHDRSZ);
			Assert(s->cur == 0 || s->cur == 1);
			s->ready = s->cur;
			s->ready_piece = s->piece;
			s->cur = 1 - s->cur;
			buf = &s->bufs[s->cur];
			chunk_reset(s, buf);
			keep_going = false;
		}
		else
			appendStringInfoChar(buf, '\n');
	}
	s->writer->row(s->writer, buf, slot, s->nrows - s->piece_start);
	/* a row always writes something: no chunk is ever empty */
	Assert(buf->len > VARHDRSZ);
	s->nrows++;
	MemoryContextSwitchTo(old);
	MemoryContextReset(s->rowcxt);

	if (!keep_going)
		s->stopped = true;
	return keep_going;
}

static void
stream_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	/* nothing to do: the writer saw the descriptor when the stream opened */
}

static void
stream_shutdown(DestReceiver *self)
{
}

static void
stream_destroy(DestReceiver *self)
{
}

/*
 * stream_error_context
 *		Error context of a stream: what it is reading.
 */
static void
stream_error_context(void *arg)
{
	ExwiwStream *s = (ExwiwStream *) arg;

	errcontext("%s", s->context);
}

static void release_owner(ExwiwStream *s, bool isCommit);
static void run_executor(ExwiwStream *s);
static void close_executor(ExwiwStream *s);

/* Streams whose executor is open, for the subtransaction callback. */
static dlist_head open_streams = DLIST_STATIC_INIT(open_streams);
static bool subxact_callback_registered = false;

/*
 * stream_subxact_callback
 *		A subtransaction ended.  Rolled back: every stream opened inside it
 *		is broken (its query may read objects that went with it).
 *		Committed: its streams now belong to the parent.
 */
static void
stream_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						SubTransactionId parentSubid, void *arg)
{
	dlist_iter	it;

	if (event != SUBXACT_EVENT_ABORT_SUB && event != SUBXACT_EVENT_COMMIT_SUB)
		return;
	dlist_foreach(it, &open_streams)
	{
		ExwiwStream *s = dlist_container(ExwiwStream, node, it.cur);

		if (s->subid != mySubid)
			continue;
		if (event == SUBXACT_EVENT_COMMIT_SUB)
		{
			s->subid = parentSubid;
			continue;
		}

		/*
		 * Release the executor's resources now, before the subtransaction
		 * drops what it created: a buffer pin or relation reference of ours
		 * on an index or table going away would fail the rollback.  The
		 * executor itself is never used again.
		 */
		s->broken = true;
		if (s->owner != NULL)
			release_owner(s, false);
	}
}

/*
 * stream_unlist
 *		Take the stream off the list of open streams (idempotent).  Also
 *		the memory-context callback of the stream's context: the list must
 *		never point into freed memory.
 */
static void
stream_unlist(void *arg)
{
	ExwiwStream *s = (ExwiwStream *) arg;

	if (s->listed)
		dlist_delete(&s->node);
	s->listed = false;
}

/*
 * stream_context_gone
 *		Memory-context callback of the stream's context: the stream's
 *		memory goes away.  Take the stream off the list and, if its executor
 *		was never closed, release its resources now.  That happens when a
 *		subtransaction aborts: the portal's executor memory is deleted
 *		(AtSubAbort_Portals) before the subtransaction callbacks run, so
 *		stream_subxact_callback would no longer find the stream, and its
 *		resource owner, a child of the transaction's, would be reported as
 *		leaking at COMMIT.
 */
static void
stream_context_gone(void *arg)
{
	ExwiwStream *s = (ExwiwStream *) arg;

	stream_unlist(s);
	s->qd = NULL;
	s->broken = true;
	if (s->owner != NULL)
		release_owner(s, false);
}

/*
 * query_error_callback
 *		While the query is parsed and planned: a syntax error's position is
 *		in the query, not in the statement that called us (as SPI does).
 */
static void
query_error_callback(void *arg)
{
	const char *query = (const char *) arg;
	int			pos = geterrposition();

	if (pos > 0)
	{
		errposition(0);
		internalerrposition(pos);
		internalerrquery(query);
	}
}

/*
 * make_params
 *		The query's parameters as a ParamListInfo, or NULL.
 */
static ParamListInfo
make_params(const ExwiwQuery *q)
{
	ParamListInfo params;
	int			i;

	if (q->nargs == 0)
		return NULL;
	params = makeParamList(q->nargs);
	for (i = 0; i < q->nargs; i++)
	{
		params->params[i].value = q->values[i];
		params->params[i].isnull = false;
		params->params[i].pflags = PARAM_FLAG_CONST;
		params->params[i].ptype = q->argtypes[i];
	}
	return params;
}

/*
 * plan_walked
 *		The plan of query, q's analyzed query: the planner's, or, for a
 *		subset export's query (q->prefetch) over row sets that hashes or
 *		merges a whole table against a small set, the same planned again
 *		as an index walk when walk.c keeps it.  Not inlined: its locals
 *		would live in start_executor's frame, which a longjmp unwinds.
 */
static pg_noinline PlannedStmt *
plan_walked(const ExwiwQuery *q, Query *query, ParamListInfo params)
{
	Query	   *again = q->prefetch && q->enrs != NIL ? copyObject(query) : NULL;
	PlannedStmt *stmt = pg_plan_query(query, q->sql, CURSOR_OPT_NO_SCROLL, params);

	if (again != NULL && exwiw_walk_wanted(stmt))
	{
		int			nest = exwiw_pin_walk();
		PlannedStmt *walk = pg_plan_query(again, q->sql, CURSOR_OPT_NO_SCROLL, params);

		exwiw_restore_settings(nest);
		if (exwiw_walk_kept(stmt, walk))
			return walk;
	}
	return stmt;
}

/*
 * start_executor
 *		Parse, check and plan q, and start its executor on the active
 *		snapshot, in the stream's context and under its resource owner, with
 *		XactReadOnly forced on.  Returns the result descriptor.
 */
static TupleDesc
start_executor(ExwiwStream *s, const ExwiwQuery *q)
{
	bool		save_read_only = XactReadOnly;
	ResourceOwner save_owner = CurrentResourceOwner;
	QueryEnvironment *env = NULL;
	ParamListInfo params = make_params(q);
	List	   *raw;
	RawStmt    *rs;
	List	   *trees;
	PlannedStmt *stmt;
	ListCell   *lc;
	int			nest = -1;
	int			io = -1;
	ErrorContextCallback qerrcb;

	if (q->enrs != NIL)
	{
		env = create_queryEnv();
		foreach(lc, q->enrs)
			register_ENR(env, (EphemeralNamedRelation) lfirst(lc));
	}

	qerrcb.callback = query_error_callback;
	qerrcb.arg = (void *) q->sql;
	qerrcb.previous = error_context_stack;
	error_context_stack = &qerrcb;
	if (q->prefetch)
		io = exwiw_pin_io_settings();
	if (q->pin_search_path)
		nest = exwiw_pin_search_path();
	raw = pg_parse_query(q->sql);
	exwiw_check_statements(list_length(raw));
	rs = linitial_node(RawStmt, raw);
	trees = pg_analyze_and_rewrite_fixedparams(rs, q->sql, q->argtypes, q->nargs, env);
	exwiw_check_query(trees, CreateCommandTag(rs->stmt));
	/* the whole result (no fast-start), read once, forward */
	stmt = plan_walked(q, linitial_node(Query, trees), params);
	if (nest >= 0)
		exwiw_restore_settings(nest);
	error_context_stack = qerrcb.previous;
	exwiw_check_column_names(ExecCleanTypeFromTL(stmt->planTree->targetlist));

	s->qd = CreateQueryDesc(stmt, q->sql, GetActiveSnapshot(), InvalidSnapshot,
							(DestReceiver *) &s->receiver, params, env, 0);
	CurrentResourceOwner = s->owner;
	XactReadOnly = true;
	PushActiveSnapshot(s->qd->snapshot);
	PG_TRY();
	{
		/* read ahead under the same guard: it calls index comparators */
		if (q->prefetch)
			exwiw_prefetch_plan(stmt, q->enrs);
		ExecutorStart(s->qd, 0);
	}
	PG_FINALLY();
	{
		PopActiveSnapshot();
		XactReadOnly = save_read_only;
		CurrentResourceOwner = save_owner;
	}
	PG_END_TRY();
	/* the scans read effective_io_concurrency at their start: done now */
	if (io >= 0)
		exwiw_restore_settings(io);
	return s->qd->tupDesc;
}

/*
 * count_receive
 *		DestReceiver callback of the count query: keep its one value.
 */
static bool
count_receive(TupleTableSlot *slot, DestReceiver *self)
{
	ExwiwStream *s = ((StreamReceiver *) self)->stream;
	bool		isnull;
	Datum		d = slot_getattr(slot, 1, &isnull);

	s->counted = isnull ? 0 : (uint64) DatumGetInt64(d);
	return true;
}

/*
 * count_rows
 *		The number of rows of q, by SELECT count(*) FROM (q), run to its end
 *		on the stream's executor slot (which it leaves closed) and snapshot.
 *		The statement's own text is taken from the parse, without a
 *		trailing semicolon; a newline before the closing parenthesis ends a
 *		trailing "--" comment.
 */
static uint64
count_rows(ExwiwStream *s, const ExwiwQuery *q)
{
	ExwiwQuery	cq = *q;
	List	   *raw;
	RawStmt    *rs;
	int			loc;
	int			len;
	int			nest = -1;

	if (q->pin_search_path)
		nest = exwiw_pin_search_path();
	raw = pg_parse_query(q->sql);
	if (nest >= 0)
		exwiw_restore_settings(nest);
	exwiw_check_statements(list_length(raw));
	rs = linitial_node(RawStmt, raw);
	loc = rs->stmt_location > 0 ? rs->stmt_location : 0;
	len = rs->stmt_len > 0 ? rs->stmt_len : (int) strlen(q->sql + loc);
	cq.sql = psprintf("SELECT pg_catalog.count(*) FROM (\n%.*s\n) AS exwiw_part",
					  len, q->sql + loc);
	cq.parts = 0;

	s->receiver.pub.receiveSlot = count_receive;
	s->counted = 0;
	(void) start_executor(s, &cq);
	run_executor(s);
	close_executor(s);
	s->receiver.pub.receiveSlot = stream_receive;
	return s->counted;
}

/*
 * stream_own
 *		Give the stream a resource owner of its own and put it on the list
 *		of open streams.
 */
static void
stream_own(ExwiwStream *s)
{
	s->owner = ResourceOwnerCreate(TopTransactionResourceOwner, "exwiw stream");
	s->subid = GetCurrentSubTransactionId();
	dlist_push_head(&open_streams, &s->node);
	s->listed = true;
}

/*
 * exwiw_stream_open
 *		Check q, start an executor on it and prepare the writer.
 *
 * funcname names the SQL function in error messages.  All state is
 * allocated in cxt, which must live as long as the stream is used.  With
 * q->parts > 0 the rows are counted first (see the file header).
 */
ExwiwStream *
exwiw_stream_open(const char *funcname, const ExwiwQuery *q,
				  ExwiwWriter *writer, int chunk_bytes, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ExwiwStream *s = palloc0(sizeof(ExwiwStream));
	MemoryContextCallback *cb = palloc0(sizeof(MemoryContextCallback));
	ErrorContextCallback errcb;
	TupleDesc	desc;

	s->funcname = funcname;
	s->context = q->context ? pstrdup(q->context) : funcname;
	s->writer = writer;
	s->cxt = cxt;
	s->chunk_bytes = chunk_bytes;
	s->error_table = q->error_table ? pstrdup(q->error_table) : NULL;
	s->masked_columns = q->masked_columns ? pstrdup(q->masked_columns) : NULL;
	s->error_keys = q->error_keys ? pstrdup(q->error_keys) : NULL;
	s->rowcxt = AllocSetContextCreate(cxt, "exwiw row",
									  ALLOCSET_DEFAULT_SIZES);
	chunk_reset(s, &s->bufs[0]);
	chunk_reset(s, &s->bufs[1]);
	s->cur = 0;

	s->receiver.pub.receiveSlot = stream_receive;
	s->receiver.pub.rStartup = stream_startup;
	s->receiver.pub.rShutdown = stream_shutdown;
	s->receiver.pub.rDestroy = stream_destroy;
	s->receiver.pub.mydest = DestNone;
	s->receiver.stream = s;

	if (!subxact_callback_registered)
	{
		RegisterSubXactCallback(stream_subxact_callback, NULL);
		subxact_callback_registered = true;
	}
	s->lo = 0;
	s->hi = PG_UINT64_MAX;
	s->piece = 1;
	s->ready_piece = 1;
	s->returned_piece = 1;
	stream_own(s);
	cb->func = stream_context_gone;
	cb->arg = s;
	MemoryContextRegisterResetCallback(cxt, cb);

	errcb.callback = stream_error_context;
	errcb.arg = s;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	if (q->parts > 0)
	{
		uint64		n = count_rows(s, q);
		uint64		k = (uint64) q->part;
		uint64		m = (uint64) q->parts;

		/* floor((k - 1) n / m) and floor(k n / m), without overflow */
		s->part = q->part;
		s->parts = q->parts;
		s->total = n;
		s->lo = (n / m) * (k - 1) + (n % m) * (k - 1) / m;
		s->hi = (n / m) * k + (n % m) * k / m;
		stream_own(s);
	}
	desc = start_executor(s, q);
	error_context_stack = errcb.previous;
	writer->begin(writer, desc, cxt);
	MemoryContextSwitchTo(old);
	return s;
}

/*
 * exwiw_error_is_plain
 *		Errors that say nothing about a row's values: cancel, shutdown,
 *		lack of resources, serialization and lock failures.
 */
bool
exwiw_error_is_plain(int sqlerrcode)
{
	switch (ERRCODE_TO_CATEGORY(sqlerrcode))
	{
		case ERRCODE_OPERATOR_INTERVENTION:
		case ERRCODE_INSUFFICIENT_RESOURCES:
		case ERRCODE_TRANSACTION_ROLLBACK:
		case ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE:
		case ERRCODE_PROGRAM_LIMIT_EXCEEDED:
			return true;
		default:
			return false;
	}
}

/*
 * exwiw_withheld_sqlstate
 *		Called in a PG_CATCH block, with the state its PG_TRY changed
 *		restored: the SQLSTATE of the error being handled, which is then
 *		dropped (its message, detail, hint and context are never reported:
 *		any of them could quote a value); a plain error (see above) is
 *		re-thrown as it is instead.  cxt: a memory context outside
 *		ErrorContext.  The caller raises its own error with the code.
 */
int
exwiw_withheld_sqlstate(MemoryContext cxt)
{
	ErrorData  *ed;
	int			code;

	MemoryContextSwitchTo(cxt);
	ed = CopyErrorData();
	if (exwiw_error_is_plain(ed->sqlerrcode))
		PG_RE_THROW();
	code = ed->sqlerrcode;
	FlushErrorState();
	FreeErrorData(ed);
	return code;
}

/*
 * exwiw_withhold_error
 *		Called in a PG_CATCH block, with the state its PG_TRY changed
 *		restored: replace the error being handled, raised while reading
 *		table (which has masked_columns, or NULL when only a user's fragment
 *		of it may read masked tables), by one that keeps its SQLSTATE and
 *		names the table and the config keys the query evaluates (keys:
 *		quoted and comma-separated, or NULL), but none of its message,
 *		detail, hint or context: any of them could quote a value that a mask
 *		hides.  The original error was never reported (an ERROR is logged
 *		and sent only where it is finally handled), so its text reaches
 *		neither the client nor the server log.  A plain error (see above) is
 *		re-thrown as it is.  Does not return.  cxt: a memory context outside
 *		ErrorContext.
 */
void
exwiw_withhold_error(MemoryContext cxt, const char *table,
					 const char *masked_columns, const char *keys)
{
	int			code = exwiw_withheld_sqlstate(cxt);

	if (masked_columns)
		ereport(ERROR,
				(errcode(code),
				 errmsg("could not read table \"%s\", which has masked columns", table),
				 keys ?
				 errdetail("The query evaluates key %s of the table's config; the message of its error (SQLSTATE %s) is withheld because it could show a value that a mask hides (masked columns: %s).",
						   keys, unpack_sql_state(code), masked_columns) :
				 errdetail("The message of the error (SQLSTATE %s) is withheld because it could show a value that a mask hides (masked columns: %s).",
						   unpack_sql_state(code), masked_columns),
				 keys ?
				 errhint("Check key %s of table \"%s\" in the config.", keys, table) : 0));
	ereport(ERROR,
			(errcode(code),
			 errmsg("could not read table \"%s\"", table),
			 keys ?
			 errdetail("The query evaluates key %s of the table's config, which may read tables with masked columns; the message of its error (SQLSTATE %s) is withheld because it could show a value that a mask hides.",
					   keys, unpack_sql_state(code)) :
			 errdetail("The query computes row sets of tables with masked columns; the message of its error (SQLSTATE %s) is withheld because it could show a value that a mask hides.",
					   unpack_sql_state(code)),
			 keys ?
			 errhint("Check key %s of table \"%s\" in the config.", keys, table) : 0));
}

/*
 * run_executor
 *		Resume the executor: rows go to the writer until a chunk is full or
 *		the data ends.  When the rows hold masked values, an error raised
 *		meanwhile is replaced by one that names the table and the masked
 *		columns, and not a value.
 */
static void
run_executor(ExwiwStream *s)
{
	bool		save_read_only = XactReadOnly;
	ResourceOwner save_owner = CurrentResourceOwner;
	MemoryContext old = CurrentMemoryContext;
	ErrorContextCallback errcb;
	int			nestlevel = exwiw_pin_output_settings();

	errcb.callback = stream_error_context;
	errcb.arg = s;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	s->stopped = false;
	CurrentResourceOwner = s->owner;
	XactReadOnly = true;
	PushActiveSnapshot(s->qd->snapshot);
	PG_TRY();
	{
		exwiw_executor_run(s->qd, ForwardScanDirection, 0);
	}
	PG_CATCH();
	{
		PopActiveSnapshot();
		XactReadOnly = save_read_only;
		CurrentResourceOwner = save_owner;
		if (s->error_table == NULL)
			PG_RE_THROW();
		exwiw_withhold_error(old, s->error_table, s->masked_columns, s->error_keys);
	}
	PG_END_TRY();
	PopActiveSnapshot();
	XactReadOnly = save_read_only;
	CurrentResourceOwner = save_owner;
	error_context_stack = errcb.previous;
	exwiw_restore_settings(nestlevel);
}

/*
 * release_owner
 *		Release and delete the stream's resource owner.  isCommit: the
 *		executor ended normally, so nothing may be left in it (leaks are
 *		reported) and its locks pass to the transaction.
 */
static void
release_owner(ExwiwStream *s, bool isCommit)
{
	ResourceOwnerRelease(s->owner, RESOURCE_RELEASE_BEFORE_LOCKS, isCommit, false);
	ResourceOwnerRelease(s->owner, RESOURCE_RELEASE_LOCKS, isCommit, false);
	ResourceOwnerRelease(s->owner, RESOURCE_RELEASE_AFTER_LOCKS, isCommit, false);
	ResourceOwnerDelete(s->owner);
	s->owner = NULL;
}

/*
 * close_executor
 *		End the executor, if it is still open.  A broken stream's executor
 *		is not ended (it may reference objects that are gone): its resources
 *		are released with its owner.
 */
static void
close_executor(ExwiwStream *s)
{
	ResourceOwner save_owner = CurrentResourceOwner;

	if (s->qd == NULL)
		return;
	if (!s->broken)
	{
		CurrentResourceOwner = s->owner;
		PG_TRY();
		{
			ExecutorFinish(s->qd);
			ExecutorEnd(s->qd);
		}
		PG_FINALLY();
		{
			CurrentResourceOwner = save_owner;
		}
		PG_END_TRY();
		FreeQueryDesc(s->qd);
	}
	s->qd = NULL;
	if (s->owner != NULL)
		release_owner(s, !s->broken);
	stream_unlist(s);
}

/*
 * check_usable
 *		Error out when the stream cannot go on: it was opened inside a
 *		subtransaction that has been rolled back since.
 */
static void
check_usable(ExwiwStream *s)
{
	if (s->broken)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_CURSOR_STATE),
				 errmsg("the export cannot go on after ROLLBACK TO SAVEPOINT"),
				 errdetail("It was started inside the subtransaction that was rolled back, and its query may read objects that went with it."),
				 errhint("Read the export to its end within the savepoint that started it, or start it again.")));
}

/*
 * check_part_count
 *		A part's reading ended: the rows must be those counted.  The query
 *		ended before the part's end, or went on after the last part: it
 *		does not return the same rows each time it runs.
 */
static void
check_part_count(ExwiwStream *s)
{
	if (s->parts == 0)
		return;
	if ((s->part_ended && s->part < s->parts) ||
		(!s->part_ended && s->nrows == s->total))
		return;
	if (s->part_ended)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s could not read part %d of %d: the query returned " UINT64_FORMAT " rows when counted, and more when read",
						s->funcname, s->part, s->parts, s->total),
				 errdetail("Parts need a query that returns the same rows in the same order each time it runs."),
				 errhint("Read the parts on one snapshot, from a query without volatile functions, ordered by a unique key.")));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("%s could not read part %d of %d: the query returned " UINT64_FORMAT " rows when counted, and " UINT64_FORMAT " when read",
					s->funcname, s->part, s->parts, s->total, s->nrows),
			 errdetail("Parts need a query that returns the same rows in the same order each time it runs."),
			 errhint("Read the parts on one snapshot, from a query without volatile functions, ordered by a unique key.")));
}

/*
 * exwiw_stream_next
 *		Return the next chunk, or NULL when the output is complete.
 *
 * The returned text stays valid until the next call on this stream.  The
 * output settings are pinned (settings.c) for the duration of the call.
 */
text *
exwiw_stream_next(ExwiwStream *s)
{
	StringInfo	buf;

	if (s->finished)
		return NULL;

	if (!s->exhausted)
	{
		check_usable(s);
		Assert(s->qd != NULL);
		run_executor(s);
		if (s->stopped)
		{
			/* stopped by a full chunk or a piece, after at least two rows */
			Assert(s->nrows - s->lo >= 2 && s->ready != s->cur);
			s->returned_piece = s->ready_piece;
			return chunk_text(&s->bufs[s->ready]);
		}
		s->exhausted = true;
		close_executor(s);
		check_part_count(s);
	}

	/* The data is complete: finish the output in the current chunk. */
	s->finished = true;
	if (s->nrows <= s->lo)
		return NULL;
	buf = &s->bufs[s->cur];
	Assert(buf->len > VARHDRSZ);	/* the last row is in it */
	/* a part before the last ends as the whole output goes on */
	if (s->writer->finish && !s->part_ended)
		s->writer->finish(s->writer, buf, s->nrows - s->piece_start);
	s->returned_piece = s->piece;
	return chunk_text(buf);
}

/*
 * exwiw_stream_close
 *		End the executor early (consumer stopped) or after the end.
 *
 * Safe to call more than once and from an ExprContext shutdown callback.
 * The stream's memory belongs to its context and goes with it.
 */
void
exwiw_stream_close(ExwiwStream *s)
{
	close_executor(s);
	s->finished = true;
}

/*
 * exwiw_stream_rows
 *		Number of rows formatted so far (of the part, for a part).
 */
uint64
exwiw_stream_rows(ExwiwStream *s)
{
	return s->nrows > s->lo ? s->nrows - s->lo : 0;
}

/*
 * exwiw_stream_piece
 *		The piece (1, 2, ...) of the chunk last returned; 1 without
 *		split_rows.
 */
int
exwiw_stream_piece(ExwiwStream *s)
{
	return s->returned_piece;
}

/*
 * exwiw_stream_set_split_rows
 *		Write the output as pieces of at most split_rows rows (0: one
 *		output), see the file header.  Call it after opening the stream,
 *		before its first chunk; not on a part.
 */
void
exwiw_stream_set_split_rows(ExwiwStream *s, int64 split_rows)
{
	Assert(s->nrows == 0 && (s->parts == 0 || split_rows == 0));
	s->split_rows = split_rows > 0 ? (uint64) split_rows : 0;
}

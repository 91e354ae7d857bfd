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
 * other buffer with the new row, and asks the executor to stop.  A stopped
 * run looks like the end of the data to PortalRunSelect(), which marks the
 * portal atEnd; the plan itself is simply suspended after that row, so we
 * clear atEnd and the next fetch continues with the following row.
 *
 * Safety: the query is checked to be a single read-only SELECT, opened with
 * the caller's privileges and the caller's snapshot, and executed with
 * XactReadOnly set, so volatile functions inside it cannot write either.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "tcop/pquery.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/portal.h"

/* A DestReceiver that feeds slots to a stream's writer. */
typedef struct StreamReceiver
{
	DestReceiver pub;
	ExwiwStream *stream;
} StreamReceiver;

struct ExwiwStream
{
	const char *funcname;
	ExwiwWriter *writer;
	MemoryContext cxt;			/* the stream's lifetime */
	MemoryContext rowcxt;		/* reset after every row */
	char	   *portal_name;	/* NULL once the cursor is closed */
	int			chunk_bytes;
	const char *prologue;		/* text before the first row, or NULL */
	const char *epilogue;		/* line after the output, or NULL */

	StringInfoData bufs[2];		/* chunk buffers, used in turn */
	int			cur;			/* buffer being filled */
	int			ready;			/* buffer closed by the receiver */
	bool		stopped;		/* receiver stopped the run: chunk ready */
	bool		exhausted;		/* cursor returned its last row */
	bool		finished;		/* last chunk returned */
	uint64		nrows;			/* rows formatted so far */
	uint64		portal_pos;		/* the portal's position after our fetch */

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

	old = MemoryContextSwitchTo(s->rowcxt);
	if (s->nrows == 0)
	{
		if (s->prologue)
			appendStringInfoString(buf, s->prologue);
	}
	else
	{
		if (s->writer->between)
			s->writer->between(s->writer, buf, s->nrows);
		if (buf->len - VARHDRSZ >= s->chunk_bytes)
		{
			/*
			 * Close this chunk.  The other buffer held the chunk returned by
			 * the previous call, which the caller is done with by now.
			 */
			s->ready = s->cur;
			s->cur = 1 - s->cur;
			buf = &s->bufs[s->cur];
			chunk_reset(s, buf);
			keep_going = false;
		}
		else
			appendStringInfoChar(buf, '\n');
	}
	s->writer->row(s->writer, buf, slot, s->nrows);
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
 * open_cursor_read_only
 *		Open a cursor on plan, on the active snapshot, with XactReadOnly
 *		forced on while the executor starts.
 */
static Portal
open_cursor_read_only(SPIPlanPtr plan)
{
	bool		save_read_only = XactReadOnly;
	Portal		portal;

	XactReadOnly = true;
	PG_TRY();
	{
		portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	}
	PG_FINALLY();
	{
		XactReadOnly = save_read_only;
	}
	PG_END_TRY();
	return portal;
}

/*
 * exwiw_stream_open
 *		Check query, open a cursor on it and prepare the writer.
 *
 * funcname names the SQL function in error messages.  prologue, when not
 * NULL, is written before the first row (it should end with a newline);
 * epilogue, when not NULL, is written as a last line after the writer's
 * finish.  Neither is written when the query returns no rows.  All state is
 * allocated in cxt, which must live as long as the stream is used.
 */
ExwiwStream *
exwiw_stream_open(const char *funcname, const char *query,
				  ExwiwWriter *writer, int chunk_bytes,
				  const char *prologue, const char *epilogue,
				  MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ExwiwStream *s = palloc0(sizeof(ExwiwStream));
	SPIPlanPtr	plan;
	CachedPlanSource *src;
	TupleDesc	desc;
	Portal		portal;

	s->funcname = funcname;
	s->writer = writer;
	s->cxt = cxt;
	s->chunk_bytes = chunk_bytes;
	s->prologue = prologue ? pstrdup(prologue) : NULL;
	s->epilogue = epilogue ? pstrdup(epilogue) : NULL;
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

	/*
	 * A WITH HOLD cursor outlives its transaction, and ours cannot: at
	 * COMMIT the portal manager may drop our cursor before it materializes
	 * the holdable one, which would then fail the COMMIT itself.  Refuse at
	 * once, before anything has run.
	 */
	if (ActivePortal != NULL && (ActivePortal->cursorOptions & CURSOR_OPT_HOLD))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot run in a WITH HOLD cursor", funcname),
				 errdetail("It reads the query through a cursor of its own, which ends with the transaction."),
				 errhint("Declare the cursor WITHOUT HOLD and read it before COMMIT, or let psql's FETCH_COUNT do the fetching.")));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	/*
	 * Plan for the whole result (no fast-start), never scrollable: the
	 * cursor is read once, forward.
	 */
	plan = SPI_prepare_cursor(query, 0, NULL, CURSOR_OPT_NO_SCROLL);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare_cursor failed: %s",
			 SPI_result_code_string(SPI_result));
	exwiw_check_query(funcname, query, plan);

	src = (CachedPlanSource *) linitial(SPI_plan_get_plan_sources(plan));
	if (src->resultDesc == NULL)
		elog(ERROR, "query has no result descriptor");
	exwiw_check_column_names(funcname, src->resultDesc);

	portal = open_cursor_read_only(plan);
	s->portal_name = MemoryContextStrdup(cxt, portal->name);
	s->portal_pos = portal->portalPos;

	MemoryContextSwitchTo(cxt);
	desc = CreateTupleDescCopy(portal->tupDesc);
	SPI_finish();

	writer->begin(writer, desc, cxt);
	MemoryContextSwitchTo(old);
	return s;
}

/*
 * close_cursor
 *		Drop the stream's portal if it still exists and is idle.
 *
 * Looks the portal up by name: at transaction abort the portal manager
 * drops it on its own, and a dangling pointer must never be followed.
 */
static void
close_cursor(ExwiwStream *s)
{
	Portal		portal;

	if (s->portal_name == NULL)
		return;
	portal = GetPortalByName(s->portal_name);
	if (PortalIsValid(portal) && portal->status == PORTAL_READY)
		SPI_cursor_close(portal);
	s->portal_name = NULL;
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
		Portal		portal = GetPortalByName(s->portal_name);
		bool		save_read_only = XactReadOnly;
		int			nestlevel;

		if (!PortalIsValid(portal))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_CURSOR_STATE),
					 errmsg("%s: the export's cursor is gone", s->funcname),
					 errdetail("It was closed by the end of the transaction or subtransaction (ROLLBACK TO SAVEPOINT) that opened it."),
					 errhint("Read the export to its end within the transaction and savepoint that started it.")));

		/*
		 * The cursor shows in pg_cursors like any other; if a FETCH or MOVE
		 * of someone else's has moved it, rows would silently go missing.
		 */
		if (portal->portalPos != s->portal_pos)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_CURSOR_STATE),
					 errmsg("%s: the export's cursor was moved by another command",
							s->funcname),
					 errdetail("A FETCH or MOVE on cursor \"%s\" read rows that would be missing from the export.",
							   s->portal_name)));

		nestlevel = exwiw_pin_output_settings();
		s->stopped = false;
		XactReadOnly = true;
		PG_TRY();
		{
			(void) PortalRunFetch(portal, FETCH_FORWARD, FETCH_ALL,
								  (DestReceiver *) &s->receiver);
		}
		PG_FINALLY();
		{
			XactReadOnly = save_read_only;
		}
		PG_END_TRY();
		exwiw_restore_settings(nestlevel);
		s->portal_pos = portal->portalPos;

		if (s->stopped)
		{
			/* suspended after a row, not at the end: see the file header */
			portal->atEnd = false;
			return chunk_text(&s->bufs[s->ready]);
		}
		s->exhausted = true;
		close_cursor(s);
	}

	/* The data is complete: finish the output in the current chunk. */
	s->finished = true;
	if (s->nrows == 0)
		return NULL;
	buf = &s->bufs[s->cur];
	if (s->writer->finish)
		s->writer->finish(s->writer, buf, s->nrows);
	if (s->epilogue)
	{
		appendStringInfoChar(buf, '\n');
		appendStringInfoString(buf, s->epilogue);
	}
	return chunk_text(buf);
}

/*
 * exwiw_stream_close
 *		Release the cursor early (consumer stopped) or after the end.
 *
 * Safe to call more than once and from an ExprContext shutdown callback.
 * The stream's memory belongs to its context and goes with it.
 */
void
exwiw_stream_close(ExwiwStream *s)
{
	close_cursor(s);
	s->finished = true;
}

/*
 * exwiw_stream_rows
 *		Number of rows formatted so far.
 */
uint64
exwiw_stream_rows(ExwiwStream *s)
{
	return s->nrows;
}

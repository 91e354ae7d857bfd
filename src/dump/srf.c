/*-------------------------------------------------------------------------
 *
 * srf.c
 *	  Value-per-call plumbing shared by the streaming set-returning
 *	  functions (exwiw_dump, exwiw_dump_jsonl, exwiw_export).
 *
 * Each call returns one chunk of an ExwiwStream.  The stream's cursor is
 * closed by an ExprContext shutdown callback when the consumer stops early
 * (LIMIT, cancel, error in the consumer), because a value-per-call SRF may
 * never see its last call.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "funcapi.h"

/*
 * exwiw_srf_shutdown
 *		ExprContext callback: the consumer is done with us, close the cursor.
 */
static void
exwiw_srf_shutdown(Datum arg)
{
	exwiw_stream_close((ExwiwStream *) DatumGetPointer(arg));
}

/*
 * exwiw_srf_next
 *		Shared value-per-call body of the streaming SRFs: return the next
 *		chunk of the stream kept in funcctx->user_fctx, or finish.
 */
Datum
exwiw_srf_next(FunctionCallInfo fcinfo, FuncCallContext *funcctx)
{
	ExwiwStream *stream = (ExwiwStream *) funcctx->user_fctx;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	text	   *chunk = exwiw_stream_next(stream);

	if (chunk != NULL)
		SRF_RETURN_NEXT(funcctx, PointerGetDatum(chunk));

	exwiw_stream_close(stream);
	/* the stream's memory goes away with the SRF's: drop our callback */
	UnregisterExprContextCallback(rsinfo->econtext, exwiw_srf_shutdown,
								  PointerGetDatum(stream));
	SRF_RETURN_DONE(funcctx);
}

/*
 * exwiw_srf_start
 *		Remember a freshly opened stream in funcctx and arrange for its
 *		cursor to be closed if the consumer stops early.
 */
void
exwiw_srf_start(FunctionCallInfo fcinfo, FuncCallContext *funcctx,
				ExwiwStream *stream)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	funcctx->user_fctx = stream;
	RegisterExprContextCallback(rsinfo->econtext, exwiw_srf_shutdown,
								PointerGetDatum(stream));
}

/*
 * exwiw_check_srf_context
 *		Error out when called where a set cannot be returned.
 */
void
exwiw_check_srf_context(FunctionCallInfo fcinfo, const char *funcname)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) ||
		!(rsinfo->allowedModes & SFRM_ValuePerCall) || rsinfo->econtext == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("set-valued function %s called in context that cannot accept a set",
						funcname)));
}

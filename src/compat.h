/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Every difference between the PostgreSQL major versions that exwiw
 *	  supports (15 to 18), in one place.
 *
 * No other file tests PG_VERSION_NUM.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_COMPAT_H
#define EXWIW_COMPAT_H

#if PG_VERSION_NUM < 150000
#error "exwiw needs PostgreSQL 15 or later"
#endif

/*
 * ExecutorRun(): PostgreSQL 18 dropped the execute_once argument.  exwiw
 * runs a query in several calls, so it is never "once".
 */
#if PG_VERSION_NUM >= 180000
#define exwiw_executor_run(qd, dir, count) ExecutorRun((qd), (dir), (count))
#else
#define exwiw_executor_run(qd, dir, count) ExecutorRun((qd), (dir), (count), false)
#endif

#endif							/* EXWIW_COMPAT_H */

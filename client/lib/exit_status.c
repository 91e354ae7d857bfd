/*-------------------------------------------------------------------------
 *
 * exit_status.c
 *	  The exit status of a run that fails on an error: 1, or what a
 *	  subcommand sets while it runs (schema check: 2, it could not run the
 *	  check).  Every file that exits on an error reads it; it lives below
 *	  them all so that none reads it from another (connection.c and
 *	  schemadir.c both do, and connection.c calls schemadir.c).
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

int			exwiw_error_exit = 1;

/*-------------------------------------------------------------------------
 *
 * main.c
 *	  exwiw, the command-line client of the exwiw extension: entry point.
 *
 *	  exwiw [export] --target-table=shops --ids=1 --schema-dir=schema -o dump
 *	  exwiw explain --target-table=shops --ids=1 --schema-dir=schema
 *	  exwiw schema generate|check|tidy --from-db --schema-dir=schema
 *	  exwiw dump --table=orders --format=jsonl --rows-per-file=10000 -j 2 -o out
 *	  exwiw load dump -j 2 --on-conflict=skip -d development
 *	  exwiw mask preview --table=users --rows=5 --schema-dir=schema
 *
 * The subcommands and flags are the Ruby client's (see options.c), so that
 * scripts written for it keep working; the files come from the server's
 * functions byte for byte (see export.c).
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

/*
 * main
 *		Parse, check, run the subcommand.
 */
int
main(int argc, char **argv)
{
	CliOptions	opts;

	pg_logging_init(argv[0]);
	exwiw_program_path = argv[0];

	parse_options(argc, argv, &opts);
	check_options(&opts);

	switch (opts.command)
	{
		case CMD_EXPORT:
			return run_export(&opts);
		case CMD_EXPLAIN:
			return run_explain(&opts);
		case CMD_SCHEMA:
			return run_schema(&opts);
		case CMD_DUMP:
			return run_dump(&opts);
		case CMD_LOAD:
			return run_load(&opts);
		case CMD_MASK:
			return run_mask_preview(&opts);
		case CMD_VERIFY:
			return run_verify(&opts);
	}
	return 1;
}

/*-------------------------------------------------------------------------
 *
 * unit_test.c
 *	  Unit tests of the client's pure parts: --ids parsing, the YAML run
 *	  config, the JSON tree and its Ruby-style printing, the schema file
 *	  names, the DDL post-processing of pg_dump's output, the row counting
 *	  of the progress display, the deal of files to workers, exwiw load's
 *	  statement splitter.
 *
 *	  make -C client unit          build and run them (exit 1 on failure)
 *	  client/unit_test --ddl FILE  print FILE post-processed (for
 *	                               comparing with the Ruby client by hand)
 *	  client/unit_test --json FILE parse and print FILE (for fuzzing)
 *	  client/unit_test --yaml FILE read FILE as the run config (fuzzing)
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <sys/wait.h>
#include <unistd.h>

static int	failures = 0;
static int	checks = 0;

/*
 * check
 *		One expectation.
 */
static void
check(bool ok, const char *what)
{
	checks++;
	if (!ok)
	{
		failures++;
		printf("not ok: %s\n", what);
	}
}

/*
 * check_str
 *		Two strings are equal.
 */
static void
check_str(const char *got, const char *want, const char *what)
{
	checks++;
	if (got == NULL || strcmp(got, want) != 0)
	{
		failures++;
		printf("not ok: %s\n  got:  [%s]\n  want: [%s]\n", what, got ? got : "(null)", want);
	}
}

/*
 * ids_text
 *		A space's ids as "a|b|c".
 */
static char *
ids_text(IdSpaces *ids, const char *space)
{
	IdSpace    *s = ids_find(ids, space);
	StringInfoData b;
	int			i;

	if (s == NULL)
		return pg_strdup("(none)");
	initStringInfo(&b);
	for (i = 0; i < s->nids; i++)
		appendStringInfo(&b, "%s%s", i ? "|" : "", s->ids[i]);
	return b.data;
}

/*
 * test_ids
 *		--ids as the Ruby client parses it.
 */
static void
test_ids(void)
{
	IdSpaces	ids;

#define IDS(value, space, want) \
	do { memset(&ids, 0, sizeof(ids)); ids_add_option(&ids, value); \
		 check_str(ids_text(&ids, space), want, "--ids=" value); } while (0)

	IDS("1,2", "default", "1|2");
	IDS("org=a,b", "org", "a|b");
	IDS("default=k=1", "default", "k=1");
	IDS("key=1", "key", "1");
	IDS("Org=1", "default", "Org=1");
	IDS("=1", "default", "=1");
	IDS("org=", "org", "");
	IDS("1,,2,", "default", "1||2");
	IDS("", "default", "");
	IDS("a_1=x", "a_1", "x");
	IDS("1a=x", "default", "1a=x");

	memset(&ids, 0, sizeof(ids));
	ids_add_option(&ids, "1");
	ids_add_option(&ids, "org=2");
	check(ids.nerrors == 0, "two spaces, no error");
	ids_add_option(&ids, "3");
	check(ids.nerrors == 1, "the default space twice is an error");
	check(ids.nerrors == 1 && strstr(ids.errors[0], "'default'") != NULL, "the error names the space");
	check(ids_any_given(&ids), "ids given");

	{
		IdSpace		s = {"default", 3, (char *[]) {"1", "a\"b", "c\\d"}};

		check_str(ids_array_literal(&s), "{\"1\",\"a\\\"b\",\"c\\\\d\"}", "text[] literal quoting");
	}
#undef IDS
}

/*
 * test_json
 *		Parse, print as Ruby does, compare.
 */
static void
test_json(void)
{
	char	   *err = NULL;
	JsonValue  *v;
	StringInfoData s;
	const char *text = "{\"name\":\"users\",\"n\":1.50,\"e\":[],\"o\":{},\"b\":[true,false,null],"
		"\"s\":\"a\\\"b\\\\c\\n\\t\\u0001/\xc3\xa9\"}";

	v = json_parse(text, strlen(text), &err);
	check(v != NULL, "parse");
	initStringInfo(&s);
	json_print_pretty(&s, v);
	check_str(s.data,
			  "{\n"
			  "  \"name\": \"users\",\n"
			  "  \"n\": 1.50,\n"
			  "  \"e\": [],\n"
			  "  \"o\": {},\n"
			  "  \"b\": [\n"
			  "    true,\n"
			  "    false,\n"
			  "    null\n"
			  "  ],\n"
			  "  \"s\": \"a\\\"b\\\\c\\n\\t\\u0001/\xc3\xa9\"\n"
			  "}", "pretty print as JSON.pretty_generate");
	resetStringInfo(&s);
	json_print_compact(&s, v);
	check_str(s.data, "{\"name\":\"users\",\"n\":1.50,\"e\":[],\"o\":{},\"b\":[true,false,null],\"s\":\"a\\\"b\\\\c\\n\\t\\u0001/\xc3\xa9\"}",
			  "compact print");

	v = json_parse("{\"a\": 1,}", 9, &err);
	check(v == NULL, "trailing comma is an error");
	check(err && strstr(err, "line 1") != NULL, "error names the line");
	v = json_parse("{\n\"a\":\n x}", 11, &err);
	check(v == NULL && err && strncmp(err, "line 3: ", 8) == 0, "error on line 3");
	check(err && strstr(err, "Token \"x\" is invalid.") != NULL, "error says which token");
	v = json_parse("not json", 8, &err);
	check(v == NULL, "not JSON");

	{
		JsonValue  *a = json_parse("{\"a\":1,\"b\":[1,2]}", 17, &err);
		JsonValue  *b = json_parse("{\"b\":[1,2],\"a\":1.0}", 19, &err);
		JsonValue  *c = json_parse("{\"b\":[2,1],\"a\":1}", 17, &err);

		check(json_equal(a, b), "equal whatever the member order");
		check(!json_equal(a, c), "arrays are ordered");
	}
	{
		static const char *const order[] = {"name", "primary_key", NULL};
		JsonValue  *t = json_parse("{\"x\":1,\"primary_key\":\"id\",\"name\":\"t\"}", 37, &err);

		resetStringInfo(&s);
		json_print_compact(&s, json_reorder(t, order));
		check_str(s.data, "{\"name\":\"t\",\"primary_key\":\"id\",\"x\":1}", "reorder");
	}
}

/*
 * nested
 *		depth "[" then depth "]".
 */
static char *
nested(int depth)
{
	char	   *t = pg_malloc(depth * 2 + 1);

	memset(t, '[', depth);
	memset(t + depth, ']', depth);
	t[depth * 2] = '\0';
	return t;
}

/*
 * test_json_hostile
 *		Input that must be an error, not a crash: deep nesting (the parser
 *		recurses once per level), NUL bytes, invalid escapes, a lone
 *		surrogate; brackets inside strings do not count as nesting.
 */
static void
test_json_hostile(void)
{
	char	   *err = NULL;
	char	   *t;
	JsonValue  *v;

	t = nested(1000);
	check(json_parse(t, strlen(t), &err) != NULL, "1000 levels parse");
	t = nested(1001);
	err = NULL;
	check(json_parse(t, strlen(t), &err) == NULL, "1001 levels are refused");
	check(err && strstr(err, "nest deeper than 1000 levels") != NULL, "the nesting error says so");
	t = nested(1000000);
	err = NULL;
	check(json_parse(t, strlen(t), &err) == NULL, "a million levels are an error, not a crash");
	/* {"a": "\"[[[...", 2000 brackets in a string with an escaped quote */
	t = psprintf("{\"a\": \"\\\"%s\"}", nested(1000));
	v = json_parse(t, strlen(t), &err);
	check(v != NULL && strlen(json_get_string(v, "a")) == 2001,
		  "brackets in strings are not nesting");
	check(json_parse("[1,\0]", 5, &err) == NULL, "a NUL byte is an error");
	check(json_parse("\"a\0b\"", 5, &err) == NULL, "a NUL byte in a string is an error");
	check(json_parse("\"\\ud800\"", 8, &err) == NULL, "a lone surrogate is an error");
	check(json_parse("\"\\x\"", 4, &err) == NULL, "an invalid escape is an error");
	v = json_parse("[1e999999999, -0.0000000000000000000001]", 40, &err);
	check(v != NULL && strcmp(v->items[0]->str, "1e999999999") == 0, "a huge number keeps its text");
}

/*
 * test_write_durably_planted_link
 *		write_file_durably's temporary file has a predictable name: a
 *		symbolic link planted there must not be followed (it exits, so in
 *		a child).
 */
static void
test_write_durably_planted_link(void)
{
	char		dir[] = "/tmp/exwiw-unit.XXXXXX";
	char	   *victim;
	char	   *target;
	pid_t		pid;
	int			status = 0;
	size_t		len = 0;
	char	   *after;
	FILE	   *f;

	if (mkdtemp(dir) == NULL)
	{
		check(false, "mkdtemp");
		return;
	}
	victim = psprintf("%s/victim", dir);
	target = psprintf("%s/t.json", dir);
	f = fopen(victim, "w");
	fputs("precious", f);
	fclose(f);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
	{
		/* the name the child will use: its own pid */
		if (symlink(victim, psprintf("%s.tmp.%d", target, (int) getpid())) != 0)
			_exit(3);
		fclose(stderr);			/* the expected error */
		write_file_durably(target, "{}", 2);
		_exit(0);
	}
	(void) waitpid(pid, &status, 0);
	after = read_whole_file(victim, &len);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 1, "a planted temporary name is an error");
	check(after != NULL && strcmp(after, "precious") == 0, "the link's target is untouched");
	(void) rmtree(dir, true);
}

/*
 * test_file_names
 *		Schema file names are encoded as the server encodes file names.
 */
static void
test_file_names(void)
{
	check_str(schema_table_file_name("d", "users"), "d/users.json", "plain name");
	check_str(schema_table_file_name("d", "a/b"), "d/a%2Fb.json", "slash encoded");
	check_str(schema_table_file_name("d", "50%"), "d/50%25.json", "percent encoded");
	check_str(schema_table_file_name("d", "billing.order"), "d/billing.order.json", "schema-qualified");
}

/*
 * test_split
 *		Ruby's split(",").
 */
static void
test_split(void)
{
	int			n;
	char	  **p;

	p = split_commas("a,b,,c,,", &n);
	check(n == 4 && strcmp(p[2], "") == 0 && strcmp(p[3], "c") == 0, "split keeps inner empty fields, drops trailing");
	p = split_commas(",", &n);
	check(n == 0, "\",\" splits to nothing");
	p = split_commas(",a", &n);
	check(n == 2 && strcmp(p[0], "") == 0, "leading empty field kept");
}

/*
 * split_copy_collect
 *		split_copy_data's sender for the tests: "<data>" appended.
 */
static bool
split_copy_collect(const char *data, size_t len, void *arg)
{
	StringInfo	out = arg;

	appendStringInfo(out, "<%.*s>", (int) len, data);
	return true;
}

/*
 * split_file_text
 *		Split text (written to a temporary file) in encoding, with
 *		standard_conforming_strings scs: the statements joined by "|" (each
 *		prefixed by its line and ":"), "ERR@line:message" at an error.
 */
static char *
split_file_text(const char *text, const char *encoding, bool scs)
{
	char		path[] = "/tmp/exwiw-split-XXXXXX";
	int			fd = mkstemp(path);
	SqlSplitter *s;
	SqlStatement st;
	StringInfoData out;
	SplitResult r;

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t) strlen(text))
		pg_fatal("could not write \"%s\": %m", path);
	close(fd);
	s = split_open(path);
	s->encoding = pg_char_to_encoding(encoding);
	s->std_strings = scs;
	initStringInfo(&out);
	while ((r = split_next(s, &st)) == SPLIT_STATEMENT)
	{
		appendStringInfo(&out, "%s%d:%s", out.len ? "|" : "", st.line, st.text);
		if (st.is_copy_from_stdin)
		{
			long		rows;
			int			first;

			appendStringInfoString(&out, "[copy]");
			if (!split_copy_data(s, split_copy_collect, &out, &rows, &first))
				break;
		}
	}
	if (r == SPLIT_ERROR || s->errmsg)
		appendStringInfo(&out, "|ERR@%d:%s", s->errline, s->errmsg);
	split_close(s);
	unlink(path);
	return out.data;
}

/*
 * test_sql_split
 *		The statement splitter of exwiw load: quotes, E'' strings, dollar
 *		quotes, comments, COPY data, meta-commands, multibyte encodings.
 */
static void
test_sql_split(void)
{
	check_str(split_file_text("SELECT 1; SELECT ';' ;\n", "UTF8", true),
			  "1:SELECT 1|1:SELECT ';' ", "semicolons in quotes");
	check_str(split_file_text("SELECT 'a''b;c', \"x;\"\"y\";\n", "UTF8", true),
			  "1:SELECT 'a''b;c', \"x;\"\"y\"", "doubled quotes");
	check_str(split_file_text("SELECT E'\\';', 'x\\';\nSELECT 2;\n", "UTF8", true),
			  "1:SELECT E'\\';', 'x\\'|2:SELECT 2", "E'' escapes, plain '' does not (scs on)");
	check_str(split_file_text("SELECT 'x\\';';\n", "UTF8", false),
			  "1:SELECT 'x\\';'", "with scs off, a backslash escapes in ''");
	check_str(split_file_text("DO $x$ BEGIN PERFORM 1; END $x$;\nDO $$ a; $x$ $$;\n", "UTF8", true),
			  "1:DO $x$ BEGIN PERFORM 1; END $x$|2:DO $$ a; $x$ $$", "dollar quotes");
	check_str(split_file_text("-- a; comment\n/* b; /* nested; */ c; */ SELECT 1;\n", "UTF8", true),
			  "2:SELECT 1", "comments");
	check_str(split_file_text("SELECT f(1;2);\n", "UTF8", true),
			  "1:SELECT f(1;2)", "parentheses");
	check_str(split_file_text("CREATE FUNCTION f() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n SELECT 1;\n SELECT CASE WHEN true THEN 2 END;\nEND;\nSELECT 3;\n", "UTF8", true),
			  "1:CREATE FUNCTION f() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n SELECT 1;\n SELECT CASE WHEN true THEN 2 END;\nEND|6:SELECT 3",
			  "BEGIN ATOMIC bodies");
	check_str(split_file_text("CREATE TABLE t (begin int);\nSELECT 1;\n", "UTF8", true),
			  "1:CREATE TABLE t (begin int)|2:SELECT 1", "a column named begin");
	check_str(split_file_text("COPY t (a) FROM stdin;\n1\n\\.\nSELECT 1;\n", "UTF8", true),
			  "1:COPY t (a) FROM stdin[copy]<1\n>|4:SELECT 1", "COPY data to its \\. line");
	check_str(split_file_text("COPY t (a) FROM stdin;\n1\n", "UTF8", true),
			  "1:COPY t (a) FROM stdin[copy]<1\n>|ERR@3:the file ends inside the data of a COPY statement (no \"\\.\" line)",
			  "COPY data without its end");
	check_str(split_file_text("\\restrict abc\nSELECT 1;\n\\unrestrict abc\n", "UTF8", true),
			  "2:SELECT 1", "pg_dump's \\restrict lines are skipped");
	check_str(split_file_text("SELECT 1;\n\\! touch x\n", "UTF8", true),
			  "1:SELECT 1|ERR@2:psql meta-command \"\\!\" is not supported: exwiw load runs SQL statements only",
			  "other meta-commands are refused");
	check_str(split_file_text("SELECT 'a\n", "UTF8", true),
			  "|ERR@1:the file ends inside a quoted string that starts at line 1", "an unterminated string");
	check_str(split_file_text("SELECT 1", "UTF8", true),
			  "|ERR@1:the file ends inside a statement that starts at line 1 (no terminating semicolon)",
			  "no final semicolon");
	/* SJIS: 0x95 0x5c is one character, its 0x5c not a backslash */
	check_str(split_file_text("SELECT E'\x95\\';\n", "SJIS", true),
			  "1:SELECT E'\x95\\'", "SJIS: a trail byte 0x5c does not escape the quote");
	/* and in UTF8 the same bytes are a backslash that escapes it */
	check_str(split_file_text("SELECT E'\xc3\xa9\\';';\n", "UTF8", true),
			  "1:SELECT E'\xc3\xa9\\';'", "UTF8: the backslash escapes");
	/* a value ending in a lead byte takes the quote into its character */
	check_str(split_file_text("SELECT '\x95';\n\\! x\n';\n", "SJIS", true),
			  "1:SELECT '\x95';\n\\! x\n'", "SJIS: a lead byte before the quote");
	check_str(split_file_text("INSERT INTO t VALUES\n('1'),\n('2')\nON CONFLICT DO NOTHING;\n", "UTF8", true),
			  "1:INSERT INTO t VALUES\n('1'),\n('2')\nON CONFLICT DO NOTHING", "an INSERT");
	check_str(load_file_table("insert-003-a%2Fb.sql"), "a/b", "a file's table, decoded");
	check_str(load_file_table("insert-001-shop.orders.part02.sql"), "shop.orders", "a part file's table");
	check(load_file_table("insert-000-schema.sql") == NULL, "the schema file has no table");
}

/*
 * test_row_counting
 *		The progress display's rows, per format.
 */
static void
test_row_counting(void)
{
	int			st = 0;
	const char *ins =
		"SET client_encoding = 'UTF8';\n"
		"SET standard_conforming_strings = on;\n"
		"DO $exwiw$ BEGIN\n"
		"  PERFORM pg_catalog.set_config('session_replication_role', 'replica', false);\n"
		"EXCEPTION WHEN insufficient_privilege THEN\n"
		"  RAISE WARNING 'exwiw: could not disable triggers for the load (%): %', SQLSTATE, SQLERRM;\n"
		"END $exwiw$;\n"
		"INSERT INTO users (id, note) VALUES\n"
		"('1', 'a\n(b'),\n"
		"('2', 'it''s'),\n"
		"('3', NULL);\n"
		"SELECT pg_catalog.setval('public.users_id_seq', 3, true);";
	const char *cont = "('4', 'x'),\n('5', ')\n(');";
	const char *copy1 = "DO $exwiw$ BEGIN\nEND $exwiw$;\nCOPY users (id, note) FROM stdin;\n1\ta\\nb\n2\t\\N";
	const char *copy2 = "3\tc\n\\.\nSELECT pg_catalog.setval('s', 3, true);";
	const char *jsonl = "{\"a\":1}\n{\"a\":2}\n{\"a\":\"x\\ny\"}";

	check(count_rows_in_chunk(EXPORT_FORMAT_INSERT, ins, strlen(ins), &st) == 3, "insert: rows, not lines");
	check(count_rows_in_chunk(EXPORT_FORMAT_INSERT, cont, strlen(cont), &st) == 2, "insert: a chunk that continues a statement");
	st = 0;
	check(count_rows_in_chunk(EXPORT_FORMAT_COPY, copy1, strlen(copy1), &st) == 2, "copy: first chunk");
	check(count_rows_in_chunk(EXPORT_FORMAT_COPY, copy2, strlen(copy2), &st) == 1, "copy: last chunk");
	check(st == 0, "copy: data ended");
	check(count_rows_in_chunk(EXPORT_FORMAT_JSONL, jsonl, strlen(jsonl), &st) == 3, "jsonl: one row per line");
}

/*
 * test_ddl
 *		pg_dump's output made idempotent, pass by pass.
 */
static void
test_ddl(void)
{
	const char *hdr = "-- Auto-generated by exwiw via pg_dump. Idempotent DDL for postgresql.\n";
	char	   *stripped = NULL;

#define DDL(in, want, what) check_str(ddl_postprocess(in, NULL, NULL), psprintf("%s%s", hdr, want), what)

	DDL("CREATE SCHEMA shop;\n", "CREATE SCHEMA IF NOT EXISTS shop;\n", "schema");
	DDL("CREATE SCHEMA IF NOT EXISTS shop;\n", "CREATE SCHEMA IF NOT EXISTS shop;\n", "schema already idempotent");
	DDL("CREATE TABLE public.t (\n    id integer\n);\n", "CREATE TABLE IF NOT EXISTS public.t (\n    id integer\n);\n", "table");
	DDL("CREATE SEQUENCE public.s\n    START WITH 1;\n", "CREATE SEQUENCE IF NOT EXISTS public.s\n    START WITH 1;\n", "sequence");
	DDL("CREATE INDEX t_a ON public.t USING btree (a);\n", "CREATE INDEX IF NOT EXISTS t_a ON public.t USING btree (a);\n", "index");
	DDL("CREATE UNIQUE INDEX t_b ON public.t USING btree (b);\n", "CREATE UNIQUE INDEX IF NOT EXISTS t_b ON public.t USING btree (b);\n", "unique index");
	DDL("create  unique\tindex x on t (a);\n", "CREATE  unique INDEX IF NOT EXISTS x on t (a);\n", "index: CREATE and INDEX rewritten, the UNIQUE group kept");
	DDL("CREATE UNLOGGED TABLE u (a int);\n", "CREATE UNLOGGED TABLE u (a int);\n", "unlogged table: not matched, as in the Ruby client");
	DDL("CREATE TYPE public.mood AS ENUM (\n    'sad',\n    'ok'\n);\n",
		"DO $exwiw$ BEGIN\n  CREATE TYPE public.mood AS ENUM (\n    'sad',\n    'ok'\n);\nEXCEPTION WHEN duplicate_object THEN NULL;\nEND $exwiw$;\n",
		"enum in a DO block");
	DDL("ALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY (id);\n",
		"DO $exwiw$ BEGIN\n  ALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY (id);\nEXCEPTION WHEN duplicate_object OR duplicate_table OR invalid_table_definition THEN NULL;\nEND $exwiw$;\n",
		"constraint in a DO block (a second primary key or unique passes too)");
	DDL("ALTER TABLE ONLY public.t ALTER COLUMN id SET DEFAULT 1;\n",
		"ALTER TABLE ONLY public.t ALTER COLUMN id SET DEFAULT 1;\n", "other ALTER TABLE untouched");
	DDL("ALTER TABLE ONLY shapes.\"Odd Name\"\n    ADD CONSTRAINT x PRIMARY KEY (id);\n",
		"ALTER TABLE ONLY shapes.\"Odd Name\"\n    ADD CONSTRAINT x PRIMARY KEY (id);\n",
		"a quoted name with a space is not matched, as in the Ruby client");
	DDL("CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;\n",
		"DO $$ BEGIN CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public; EXCEPTION WHEN feature_not_supported OR invalid_schema_name OR internal_error OR insufficient_privilege THEN RAISE WARNING 'exwiw: skipped CREATE EXTENSION pg_trgm (SQLSTATE %): %', SQLSTATE, SQLERRM USING HINT = 'The objects of this schema that use it need it: a superuser can create it first, then this file loads again.'; END $$;\n",
		"extension in a DO block");
	DDL("CREATE EXTENSION \"uuid-ossp\";\n",
		"DO $$ BEGIN CREATE EXTENSION \"uuid-ossp\"; EXCEPTION WHEN feature_not_supported OR invalid_schema_name OR internal_error OR insufficient_privilege THEN RAISE WARNING 'exwiw: skipped CREATE EXTENSION uuid-ossp (SQLSTATE %): %', SQLSTATE, SQLERRM USING HINT = 'The objects of this schema that use it need it: a superuser can create it first, then this file loads again.'; END $$;\n",
		"quoted extension name");
	DDL("COMMENT ON EXTENSION pg_trgm IS 'text similarity; it''s';\n",
		"DO $exwiw$ BEGIN COMMENT ON EXTENSION pg_trgm IS 'text similarity; it''s'; EXCEPTION WHEN undefined_object OR insufficient_privilege THEN NULL; END $exwiw$;\n",
		"comment on extension in a DO block");
	DDL("--\n-- Name: users set_ts; Type: TRIGGER; Schema: public; Owner: -\n--\n\nCREATE TRIGGER set_ts BEFORE UPDATE ON public.users FOR EACH ROW WHEN ((new.a <> ';')) EXECUTE FUNCTION public.f('a;b');\n",
		"--\n-- Name: users set_ts; Type: TRIGGER; Schema: public; Owner: -\n--\n\nDO $exwiw$ BEGIN\n  CREATE TRIGGER set_ts BEFORE UPDATE ON public.users FOR EACH ROW WHEN ((new.a <> ';')) EXECUTE FUNCTION public.f('a;b');\nEXCEPTION WHEN duplicate_object THEN NULL;\nEND $exwiw$;\n",
		"trigger after its header, semicolons in quotes kept");
	DDL("CREATE FUNCTION f() RETURNS trigger AS $$\nBEGIN\nCREATE TRIGGER x AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION g();\nEND $$;\n",
		"CREATE OR REPLACE FUNCTION f() RETURNS trigger AS $$\nBEGIN\nCREATE TRIGGER x AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION g();\nEND $$;\n",
		"a trigger inside a function body (no header) is left alone");
	DDL("--\n-- Name: google_vacuum_mgmt; Type: EXTENSION; Schema: -; Owner: -\n--\n\n"
		"CREATE EXTENSION IF NOT EXISTS google_vacuum_mgmt WITH SCHEMA google_vacuum_mgmt;\n\n\n"
		"--\n-- Name: EXTENSION google_vacuum_mgmt; Type: COMMENT; Schema: -; Owner: -\n--\n\n"
		"COMMENT ON EXTENSION google_vacuum_mgmt IS 'vacuum';\n\n\n"
		"CREATE TABLE a (id int);\n",
		"CREATE TABLE IF NOT EXISTS a (id int);\n",
		"platform extensions left out, with their blank lines");
	DDL("CREATE EXTENSION google_vacuum_mgmt_v2;\n",
		"DO $$ BEGIN CREATE EXTENSION google_vacuum_mgmt_v2; EXCEPTION WHEN feature_not_supported OR invalid_schema_name OR internal_error OR insufficient_privilege THEN RAISE WARNING 'exwiw: skipped CREATE EXTENSION google_vacuum_mgmt_v2 (SQLSTATE %): %', SQLSTATE, SQLERRM USING HINT = 'The objects of this schema that use it need it: a superuser can create it first, then this file loads again.'; END $$;\n",
		"whole names only");
	DDL("CREATE FUNCTION public.f() RETURNS trigger\n    AS $$ BEGIN RETURN NEW; END $$;\n",
		"CREATE OR REPLACE FUNCTION public.f() RETURNS trigger\n    AS $$ BEGIN RETURN NEW; END $$;\n", "function");
	DDL("CREATE VIEW public.v AS\n SELECT 1;\n", "CREATE OR REPLACE VIEW public.v AS\n SELECT 1;\n", "view");
	DDL("CREATE PROCEDURE public.p()\n    AS $$ SELECT 1 $$;\n", "CREATE OR REPLACE PROCEDURE public.p()\n    AS $$ SELECT 1 $$;\n", "procedure");
	DDL("CREATE OR REPLACE FUNCTION public.f() RETURNS int\n", "CREATE OR REPLACE FUNCTION public.f() RETURNS int\n", "function already replaceable");
	DDL("SELECT 1; CREATE FUNCTION x\n", "SELECT 1; CREATE FUNCTION x\n", "function not at a line start");
	(void) ddl_postprocess("CREATE EXTENSION google_db_advisor;\nCREATE EXTENSION x;\n", NULL, &stripped);
	check_str(stripped, "google_db_advisor", "stripped extensions are reported");
	{
		static const char *const tooling[] = {"exwiw", "pg_stat_statements", NULL};

		check_str(ddl_postprocess("--\n-- Name: exwiw; Type: EXTENSION; Schema: -; Owner: -\n--\n\n"
								  "CREATE EXTENSION IF NOT EXISTS exwiw WITH SCHEMA public;\n\n\n"
								  "--\n-- Name: EXTENSION exwiw; Type: COMMENT; Schema: -; Owner: -\n--\n\n"
								  "COMMENT ON EXTENSION exwiw IS 'export';\n\n\n"
								  "CREATE EXTENSION pg_stat_statements;\nCREATE EXTENSION exwiw_other;\n",
								  tooling, &stripped),
				  psprintf("%s-- Left out: the extensions that no object of this schema needs (server tooling): exwiw, pg_stat_statements.\n"
						   "DO $$ BEGIN CREATE EXTENSION exwiw_other; EXCEPTION WHEN feature_not_supported OR invalid_schema_name OR internal_error OR insufficient_privilege THEN RAISE WARNING 'exwiw: skipped CREATE EXTENSION exwiw_other (SQLSTATE %%): %%', SQLSTATE, SQLERRM USING HINT = 'The objects of this schema that use it need it: a superuser can create it first, then this file loads again.'; END $$;\n",
						   hdr),
				  "the extensions the caller names are left out, and named in a comment");
		check_str(stripped, "exwiw, pg_stat_statements", "and reported");
	}
#undef DDL
}

/*
 * test_deal
 *		Files that share an expensive row set go to one worker.
 */
static void
test_deal(void)
{
	ExportPlan	plan = {0};
	PlanSet		sets[2] = {{"exwiw_f_1", "big", 100}, {"exwiw_s_2", "small", 1}};
	int			needbig[] = {0};
	int			needsmall[] = {1};
	PlanFile	files[4] = {
		{.seq = 1,.cost = 10,.nneed = 1,.need = needbig,.standalone = 110},
		{.seq = 2,.cost = 10,.nneed = 1,.need = needbig,.standalone = 110},
		{.seq = 3,.cost = 50,.nneed = 1,.need = needsmall,.standalone = 51},
		{.seq = 4,.cost = 40,.nneed = 0,.need = NULL,.standalone = 40},
	};
	int			n;

	plan.nsets = 2;
	plan.sets = sets;
	plan.nfiles = 4;
	plan.files = files;
	n = deal_files(&plan, 2);
	check(n == 2, "two workers used");
	check(files[0].worker == files[1].worker, "the files that share the big set are together");
	check(files[2].worker == files[3].worker && files[2].worker != files[0].worker, "the others on the other worker");
	n = deal_files(&plan, 8);
	check(n <= 4, "never more workers than files");
	n = deal_files(&plan, 1);
	check(n == 1 && files[3].worker == 0, "one worker");
}

/*
 * test_runconfig
 *		The YAML run config fills unset options, refuses connection keys.
 */
static void
test_runconfig(void)
{
	char		dir[] = "/tmp/exwiw-unit.XXXXXX";
	char	   *path;
	FILE	   *f;
	CliOptions	opts;

	if (mkdtemp(dir) == NULL)
	{
		check(false, "mkdtemp");
		return;
	}
	path = psprintf("%s/exwiw.yml", dir);
	f = fopen(path, "w");
	fprintf(f, "schema_dir: schema/\noutput_dir: out\ntarget_table: shops\nids: [1, 2]\nlog_level: debug\nparallel_workers: 3\n");
	fclose(f);
	memset(&opts, 0, sizeof(opts));
	opts.jobs = -1;
	opts.target_table = pg_strdup("orders");	/* the flag wins */
	runconfig_apply(path, &opts);
	check_str(opts.schema_dir, psprintf("%s/schema", dir), "schema_dir relative to the file, slash stripped");
	check_str(opts.output_dir, psprintf("%s/out", dir), "output_dir relative to the file");
	check_str(opts.target_table, "orders", "flags win");
	check_str(ids_text(&opts.ids, "default"), "1|2", "ids from a list");
	check(opts.jobs == 3, "parallel_workers");

	f = fopen(path, "w");
	fprintf(f, "ids:\n  default: 1,2\n  org: [a]\noutput_format: ~\n");
	fclose(f);
	memset(&opts, 0, sizeof(opts));
	opts.jobs = -1;
	runconfig_apply(path, &opts);
	check_str(ids_text(&opts.ids, "org"), "a", "ids by space");
	check_str(ids_text(&opts.ids, "default"), "1|2", "ids by space, default");
	check(opts.output_format == NULL, "null is unset");
	unlink(path);
	rmdir(dir);
}

/*
 * main
 *		Run every test; or --ddl FILE.
 */
int
main(int argc, char **argv)
{
	pg_logging_init(argv[0]);
	if (argc == 3 && strcmp(argv[1], "--ddl") == 0)
	{
		size_t		len;
		char	   *text = read_whole_file(argv[2], &len);

		if (text == NULL)
			pg_fatal("could not read \"%s\": %m", argv[2]);
		fputs(ddl_postprocess(text, NULL, NULL), stdout);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--json") == 0)
	{
		/* for fuzzing: parse FILE, print it; exit 1 when it is not JSON */
		size_t		len;
		char	   *text = read_whole_file(argv[2], &len);
		char	   *err = NULL;
		JsonValue  *v;
		StringInfoData out;

		if (text == NULL)
			pg_fatal("could not read \"%s\": %m", argv[2]);
		v = json_parse(text, len, &err);
		if (v == NULL)
			pg_fatal("%s", err);
		initStringInfo(&out);
		json_print_pretty(&out, v);
		check(json_equal(v, json_copy(v)), "a copy is equal");
		puts(out.data);
		return failures ? 2 : 0;
	}
	if (argc == 3 && strcmp(argv[1], "--yaml") == 0)
	{
		/* for fuzzing: apply FILE as the run config of export */
		CliOptions	opts;

		memset(&opts, 0, sizeof(opts));
		opts.jobs = -1;
		runconfig_apply(argv[2], &opts);
		return 0;
	}
	test_ids();
	test_split();
	test_json();
	test_json_hostile();
	test_write_durably_planted_link();
	test_file_names();
	test_row_counting();
	test_sql_split();
	test_ddl();
	test_deal();
	test_runconfig();
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

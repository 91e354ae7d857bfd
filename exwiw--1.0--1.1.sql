/* exwiw--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION exwiw UPDATE TO '1.1'" to load this file. \quit

------------------------------------------------------------------------------
-- 1.1: the subset engine in C.  The PL/pgSQL planner and its helpers go;
-- exwiw_plan and exwiw_export take the Ruby client's options and return
-- more; exwiw_explain, exwiw_fake, the server-side sinks and
-- exwiw_copy_lines and exwiw_file_prologue are new; exwiw_ext_json takes a record, as the
-- server's row_to_json does.
------------------------------------------------------------------------------

DROP FUNCTION exwiw_plan(text, text[], jsonb);
DROP FUNCTION exwiw_internal_plan(text, text[], jsonb);
DROP FUNCTION exwiw_internal_check_config(jsonb);
DROP FUNCTION exwiw_internal_config_keys(jsonb, text[], text, text);
DROP FUNCTION exwiw_internal_config_type(jsonb, text, text, text);
DROP FUNCTION exwiw_internal_config_error(text, text, text, text);
DROP FUNCTION exwiw_config_from_catalog(name);
DROP FUNCTION exwiw_internal_config_name(regclass);
DROP FUNCTION exwiw_export(text, text[], jsonb, text);
DROP FUNCTION exwiw_ext_json(anyelement, text[], boolean);

CREATE FUNCTION exwiw_ext_json(
	row_value record,
	oid_columns text[] DEFAULT NULL,
	omit_nulls boolean DEFAULT false)
RETURNS text
AS 'MODULE_PATHNAME', 'exwiw_ext_json_row'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION exwiw_ext_json(record, text[], boolean) IS
'One row as a Relaxed Extended JSON document: name/oid_columns -> ObjectId, timestamps -> Time, numeric -> Decimal128, bytea/uuid -> Binary';

CREATE FUNCTION exwiw_config_from_catalog(schema name DEFAULT current_schema())
RETURNS jsonb
AS 'MODULE_PATHNAME', 'exwiw_config_from_catalog'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION exwiw_config_from_catalog(name) IS
'An exwiw subset-export config for every table of a schema (and the tables its foreign keys reference), from the catalog: keys, belongs_tos, columns, sensitive columns marked; edit it to add masks';

CREATE FUNCTION exwiw_plan(
	target_table text,
	ids text[],
	config jsonb DEFAULT NULL,
	ids_by_space jsonb DEFAULT NULL)
RETURNS TABLE(step integer, seq integer, table_name text, output text,
			  rule text, query text)
AS 'MODULE_PATHNAME', 'exwiw_plan'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_plan(text, text[], jsonb, jsonb) IS
'The subset export plan: the row sets computed once (exwiw_s/x/f_N), then one extraction query per file in processing order; a NULL config means exwiw_config_from_catalog()';

CREATE FUNCTION exwiw_explain(
	target_table text,
	ids text[],
	config jsonb DEFAULT NULL,
	actual boolean DEFAULT false,
	ids_by_space jsonb DEFAULT NULL,
	count_rows boolean DEFAULT false)
RETURNS TABLE(seq integer, table_name text, file_name text,
			  estimated_rows double precision, indexes text[], plan text,
			  actual_rows double precision)
AS 'MODULE_PATHNAME', 'exwiw_explain'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_explain(text, text[], jsonb, boolean, jsonb, boolean) IS
'EXPLAIN every file''s extraction query of a subset export where it runs (its row sets computed on the caller''s snapshot): estimated rows, indexes used, and the plan (with ANALYZE and BUFFERS when asked, and then the rows each file holds, counted on that snapshot); with count_rows, the rows each file holds counted on that snapshot without running its query';

CREATE FUNCTION exwiw_export(
	target_table text,
	ids text[],
	config jsonb DEFAULT NULL,
	format text DEFAULT 'insert',
	allow_undecided boolean DEFAULT false,
	files integer[] DEFAULT NULL,
	ids_by_space jsonb DEFAULT NULL,
	part integer DEFAULT NULL,
	parts integer DEFAULT NULL,
	allow_missing_ids boolean DEFAULT false,
	split_rows integer DEFAULT NULL,
	deletes boolean DEFAULT false)
RETURNS TABLE(file_name text, chunk text)
AS 'MODULE_PATHNAME', 'exwiw_export'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_export(text, text[], jsonb, text, boolean, integer[], jsonb, integer, integer, boolean, integer, boolean) IS
'Stream a subset export: every table''s file (insert-NNN-<table>.sql) as (file_name, chunk) rows, in processing order, all tables from one snapshot; part => k, parts => n: the k-th of n parts of each file; split_rows => n: files of at most n rows (insert-NNN-<table>.partK.sql), each loading on its own; deletes => true: then the delete files (delete-NNN-<table>.sql) that clear those rows from a development database, children first';

CREATE FUNCTION exwiw_fake(type text, locale text, seed text)
RETURNS text
AS 'MODULE_PATHNAME', 'exwiw_fake'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION exwiw_fake(text, text, text) IS
'A deterministic fake value for replace_with_fake_data: the SHA-256 of seed picks an entry of exwiw''s pools (type name, first_name, last_name, email, username, phone_number, address, city, company; locale ja for Japanese)';

CREATE FUNCTION exwiw_dump_to_file(
	path text,
	query text,
	table_name text,
	rows_per_statement integer DEFAULT NULL,
	format text DEFAULT 'insert',
	compress text DEFAULT 'none',
	overwrite boolean DEFAULT false,
	part integer DEFAULT NULL,
	parts integer DEFAULT NULL,
	OUT file_name text,
	OUT rows bigint,
	OUT bytes bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'exwiw_dump_to_file'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_dump_to_file(text, text, text, integer, text, text, boolean, integer, integer) IS
'Write exwiw_dump''s output as a whole SQL file on the server (SET client_encoding and SET standard_conforming_strings = on first), atomically; compress => ''gzip'' or ''zstd''';

CREATE FUNCTION exwiw_dump_jsonl_to_file(
	path text,
	query text,
	oid_columns text[] DEFAULT NULL,
	omit_nulls boolean DEFAULT false,
	compress text DEFAULT 'none',
	overwrite boolean DEFAULT false,
	part integer DEFAULT NULL,
	parts integer DEFAULT NULL,
	OUT file_name text,
	OUT rows bigint,
	OUT bytes bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'exwiw_dump_jsonl_to_file'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_dump_jsonl_to_file(text, text, text[], boolean, text, boolean, integer, integer) IS
'Write exwiw_dump_jsonl''s output as a .jsonl file on the server, atomically; compress => ''gzip'' or ''zstd''';

CREATE FUNCTION exwiw_export_to_dir(
	dir text,
	target_table text,
	ids text[],
	config jsonb DEFAULT NULL,
	format text DEFAULT 'insert',
	allow_undecided boolean DEFAULT false,
	files integer[] DEFAULT NULL,
	compress text DEFAULT 'none',
	overwrite boolean DEFAULT false,
	ids_by_space jsonb DEFAULT NULL,
	part integer DEFAULT NULL,
	parts integer DEFAULT NULL,
	allow_missing_ids boolean DEFAULT false,
	deletes boolean DEFAULT false)
RETURNS TABLE(file_name text, rows bigint, bytes bigint)
AS 'MODULE_PATHNAME', 'exwiw_export_to_dir'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_export_to_dir(text, text, text[], jsonb, text, boolean, integer[], text, boolean, jsonb, integer, integer, boolean, boolean) IS
'Write the files of exwiw_export, byte for byte, into a directory on the server that appears under its name only when complete; one row per file; part => k, parts => n: each file''s k-th part, as insert-NNN-<table>.partK.sql; deletes => true: also the delete files';

CREATE FUNCTION exwiw_remove_export(dir text)
RETURNS integer
AS 'MODULE_PATHNAME', 'exwiw_remove_export'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_remove_export(text) IS
'Remove the directory of an export written by exwiw_export_to_dir (only files named insert-* or delete-* in it); returns the number of files removed';

CREATE FUNCTION exwiw_copy_lines(query text, table_name text)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'exwiw_copy_lines'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_copy_lines(text, text) IS
'A COPY-format dump as one file line per row, for \copy (SELECT exwiw_copy_lines(...)) TO ''file'' WITH (FORMAT csv, DELIMITER E''\x01'', QUOTE E''\x02'', NULL E''\x03'')';

CREATE FUNCTION exwiw_file_prologue()
RETURNS text
AS 'MODULE_PATHNAME', 'exwiw_file_prologue'
LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION exwiw_file_prologue() IS
'The lines a whole SQL file starts with, for a file made of this session''s output (psql -XAt -c "SELECT exwiw_file_prologue()" -c "SELECT exwiw_dump(...)"): SET client_encoding to the encoding the output reaches the client in, then SET standard_conforming_strings = on';
-- exwiw_dump and exwiw_dump_jsonl take part and parts (issue 23).
DROP FUNCTION exwiw_dump(text, text, integer, text, integer);
DROP FUNCTION exwiw_dump_jsonl(text, text[], boolean, integer);

CREATE FUNCTION exwiw_dump(
	query text,
	table_name text,
	rows_per_statement integer DEFAULT NULL,
	format text DEFAULT 'insert',
	chunk_bytes integer DEFAULT 262144,
	part integer DEFAULT NULL,
	parts integer DEFAULT NULL)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'exwiw_dump'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_dump(text, text, integer, text, integer, integer, integer) IS
'Stream the rows of a read-only query as one INSERT statement (or a COPY block), in text chunks that end between rows; part => k, parts => n: the k-th of n parts, which concatenate to the whole';

CREATE FUNCTION exwiw_dump_jsonl(
	query text,
	oid_columns text[] DEFAULT NULL,
	omit_nulls boolean DEFAULT false,
	chunk_bytes integer DEFAULT 262144,
	part integer DEFAULT NULL,
	parts integer DEFAULT NULL)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'exwiw_dump_jsonl'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_dump_jsonl(text, text[], boolean, integer, integer, integer) IS
'Stream the rows of a read-only query as JSON Lines of Relaxed Extended JSON (mongoimport input), in chunks of whole lines; part => k, parts => n: the k-th of n parts';

------------------------------------------------------------------------------
-- Masks that are functions (mask_*.c): the generated SELECT of a subset
-- export calls them for the column keys pseudonym, partial, noise and json.
-- Pseudonyms and noise are keyed by exwiw.mask_secret, which the functions
-- read themselves: it is never part of a query's text.
------------------------------------------------------------------------------

CREATE FUNCTION exwiw_mask_pseudonym(value text, type text, locale text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'exwiw_mask_pseudonym'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION exwiw_mask_pseudonym(text, text, text) IS
'A fake value of type (name, email, username, phone_number, address, company, iban, credit_card, uuid, ...) keyed by HMAC-SHA-256 of value under exwiw.mask_secret: the same value gives the same pseudonym everywhere';

CREATE FUNCTION exwiw_mask_partial(value text, keep_start integer DEFAULT 0,
	keep_end integer DEFAULT 0, fill text DEFAULT '*', keep_domain boolean DEFAULT false)
RETURNS text
AS 'MODULE_PATHNAME', 'exwiw_mask_partial'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION exwiw_mask_partial(text, integer, integer, text, boolean) IS
'Keep keep_start and keep_end characters of value, each other one becomes fill (a value no longer than both is filled whole); keep_domain keeps an e-mail''s @domain';

CREATE FUNCTION exwiw_mask_noise(value numeric, ratio float8, type oid,
	column_name text, seed "any", typmod integer DEFAULT -1)
RETURNS numeric
AS 'MODULE_PATHNAME', 'exwiw_mask_noise_numeric'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION exwiw_mask_noise(numeric, float8, oid, text, "any", integer) IS
'value moved by up to ratio of itself, by an amount keyed by exwiw.mask_secret, column_name and seed (the row''s key, as text), rounded to its scale and kept within the range of type (of numeric(p, s) for a typmod)';

CREATE FUNCTION exwiw_mask_noise(value date, span interval, column_name text, seed "any")
RETURNS date
AS 'MODULE_PATHNAME', 'exwiw_mask_noise_date'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION exwiw_mask_noise(date, interval, text, "any") IS
'value moved by up to span, by whole days keyed by exwiw.mask_secret, column_name and seed, kept within the range of date';

CREATE FUNCTION exwiw_mask_noise(value timestamp, span interval, column_name text, seed "any")
RETURNS timestamp
AS 'MODULE_PATHNAME', 'exwiw_mask_noise_timestamp'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION exwiw_mask_noise(timestamp, interval, text, "any") IS
'value moved by up to span, by an amount keyed by exwiw.mask_secret, column_name and seed, kept within the range of timestamp';

CREATE FUNCTION exwiw_mask_noise(value timestamptz, span interval, column_name text, seed "any")
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'exwiw_mask_noise_timestamp'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION exwiw_mask_noise(timestamptz, interval, text, "any") IS
'value moved by up to span, by an amount keyed by exwiw.mask_secret, column_name and seed, kept within the range of timestamptz';

CREATE FUNCTION exwiw_mask_json(doc jsonb, spec jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'exwiw_mask_json'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION exwiw_mask_json(jsonb, jsonb) IS
'doc with the masks of spec applied at their paths ([{"path": "$.a.b", "pseudonym": type | "partial": {...} | "delete": true}, ...]), the rest untouched';

CREATE FUNCTION exwiw_mask_preview(config jsonb, table_name text, nrows integer DEFAULT 10)
RETURNS TABLE(row_number integer, column_name text, original text, masked text)
AS 'MODULE_PATHNAME', 'exwiw_mask_preview'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_mask_preview(jsonb, text, integer) IS
'The masked columns of a table of the config, original beside masked, for its first nrows rows; only for roles with the privileges of pg_read_all_data';

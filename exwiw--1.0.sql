/* exwiw--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION exwiw" to load this file. \quit

------------------------------------------------------------------------------
-- exwiw_dump: one INSERT statement (or COPY block) for any query, streamed.
------------------------------------------------------------------------------

CREATE FUNCTION exwiw_dump(
	query text,
	table_name text,
	rows_per_statement integer DEFAULT NULL,
	format text DEFAULT 'insert',
	chunk_bytes integer DEFAULT 262144)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'exwiw_dump'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_dump(text, text, integer, text, integer) IS
'Stream the rows of a read-only query as one INSERT statement (or a COPY block), in text chunks that end between rows';

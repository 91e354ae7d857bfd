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

------------------------------------------------------------------------------
-- Extended JSON: MongoDB Relaxed Extended JSON v2, byte for byte as Ruby's
-- bson gem writes it (JSON.generate(v.as_extended_json(mode: :relaxed))).
------------------------------------------------------------------------------

CREATE FUNCTION exwiw_ext_json(doc jsonb)
RETURNS text
AS 'MODULE_PATHNAME', 'exwiw_ext_json_jsonb'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION exwiw_ext_json(jsonb) IS
'One jsonb value as a compact Relaxed Extended JSON document; $-wrappers (canonical, relaxed, legacy) are normalized';

CREATE FUNCTION exwiw_ext_json(doc json)
RETURNS text
AS 'MODULE_PATHNAME', 'exwiw_ext_json_json'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION exwiw_ext_json(json) IS
'One json value as a compact Relaxed Extended JSON document, keeping key order and duplicate keys';

CREATE FUNCTION exwiw_ext_json(
	row_value anyelement,
	oid_columns text[] DEFAULT NULL,
	omit_nulls boolean DEFAULT false)
RETURNS text
AS 'MODULE_PATHNAME', 'exwiw_ext_json_row'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION exwiw_ext_json(anyelement, text[], boolean) IS
'One row as a Relaxed Extended JSON document: name/oid_columns -> ObjectId, timestamps -> Time, numeric -> Decimal128, bytea/uuid -> Binary';

CREATE FUNCTION exwiw_dump_jsonl(
	query text,
	oid_columns text[] DEFAULT NULL,
	omit_nulls boolean DEFAULT false,
	chunk_bytes integer DEFAULT 262144)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'exwiw_dump_jsonl'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_dump_jsonl(text, text[], boolean, integer) IS
'Stream the rows of a read-only query as JSON Lines of Relaxed Extended JSON (mongoimport input), in chunks of whole lines';

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

-- Subset export: exwiw_config_from_catalog, exwiw_plan, exwiw_export.
--
-- A config is a JSON array of table configs, or {"tables": [...]}:
--
--   {"name": "users", "primary_key": "id", "filter": "<SQL predicate>",
--    "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_id"}],
--    "columns": [{"name": "email", "replace_with": "user{id}@example.com"},
--                {"name": "phone", "raw_sql": "NULL"}],
--    "bulk_insert_chunk_size": 10000, "ignore": false, "comment": "..."}
--
-- The planner (exwiw_internal_plan) turns a config, a target table and ids
-- into one extraction query per table; exwiw_export (C, run/export.c)
-- streams every query through the dump writer, all in one snapshot.
-- Helpers named exwiw_internal_* are not part of the user interface.
------------------------------------------------------------------------------

-- The name a config uses for a table: bare when the table is in the current
-- schema, else "schema.table".  Names are raw (not SQL-quoted) identifiers.
CREATE FUNCTION exwiw_internal_config_name(rel regclass)
RETURNS text
LANGUAGE sql STABLE STRICT
AS $$
	SELECT CASE WHEN n.nspname = current_schema() THEN c.relname::text
				ELSE n.nspname || '.' || c.relname END
	FROM pg_catalog.pg_class c
	JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	WHERE c.oid = rel
$$;

CREATE FUNCTION exwiw_config_from_catalog(schema name DEFAULT current_schema())
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	nsp oid;
	rel record;
	fk record;
	tables jsonb := '[]';
	t jsonb;
	pk text[];
	notes text[];
	belongs jsonb;
	cols jsonb;
BEGIN
	IF schema IS NULL THEN
		RAISE EXCEPTION 'exwiw_config_from_catalog: argument "schema" must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Leave the argument out to use the current schema.';
	END IF;
	SELECT n.oid INTO nsp FROM pg_catalog.pg_namespace n WHERE n.nspname = schema;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'exwiw_config_from_catalog: schema "%" does not exist', schema
			USING ERRCODE = 'invalid_schema_name';
	END IF;

	FOR rel IN
		SELECT c.oid, c.relname
		FROM pg_catalog.pg_class c
		WHERE c.relnamespace = nsp AND c.relkind IN ('r', 'p')
		  AND NOT c.relispartition
		ORDER BY c.relname COLLATE "C"
	LOOP
		notes := '{}';

		-- primary key columns, in key order
		SELECT array_agg(a.attname::text ORDER BY k.ord) INTO pk
		FROM pg_catalog.pg_constraint con
		CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
		JOIN pg_catalog.pg_attribute a
		  ON a.attrelid = con.conrelid AND a.attnum = k.attnum
		WHERE con.conrelid = rel.oid AND con.contype = 'p';
		IF pk IS NULL THEN
			notes := notes || 'no primary key: the table can only be exported through its belongs_tos or in full, and cannot be a target or a parent'::text;
		ELSIF cardinality(pk) > 1 THEN
			notes := notes || format('composite primary key (%s) is not supported: the table can only be exported through its belongs_tos or in full, and cannot be a target or a parent',
									 array_to_string(pk, ', '));
		END IF;

		-- belongs_tos: single-column foreign keys to a single-column
		-- primary key of a table in the same schema
		belongs := '[]';
		FOR fk IN
			SELECT con.conname, con.conkey, con.confkey, con.confrelid,
				   rc.relnamespace AS refnsp,
				   (SELECT a.attname FROM pg_catalog.pg_attribute a
					WHERE a.attrelid = con.conrelid AND a.attnum = con.conkey[1]) AS fkcol,
				   (SELECT pc.conkey FROM pg_catalog.pg_constraint pc
					WHERE pc.conrelid = con.confrelid AND pc.contype = 'p') AS refpk
			FROM pg_catalog.pg_constraint con
			JOIN pg_catalog.pg_class rc ON rc.oid = con.confrelid
			WHERE con.conrelid = rel.oid AND con.contype = 'f'
			ORDER BY con.conname COLLATE "C"
		LOOP
			IF cardinality(fk.conkey) > 1 THEN
				notes := notes || format('foreign key %s has several columns and is not a belongs_to: exported rows may reference rows that are not exported',
										 fk.conname);
			ELSIF fk.refnsp <> nsp THEN
				notes := notes || format('foreign key %s references %s in another schema and is not a belongs_to',
										 fk.conname, fk.confrelid::regclass);
			ELSIF fk.refpk IS DISTINCT FROM fk.confkey THEN
				notes := notes || format('foreign key %s does not reference the primary key of %s and is not a belongs_to',
										 fk.conname, fk.confrelid::regclass);
			ELSE
				belongs := belongs || jsonb_build_object(
					'table_name', @extschema@.exwiw_internal_config_name(fk.confrelid),
					'foreign_key', fk.fkcol);
			END IF;
		END LOOP;

		-- insertable columns, in table order
		SELECT coalesce(jsonb_agg(jsonb_build_object('name', a.attname) ORDER BY a.attnum), '[]')
		INTO cols
		FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = rel.oid AND a.attnum > 0 AND NOT a.attisdropped
		  AND a.attgenerated = '';
		IF EXISTS (SELECT FROM pg_catalog.pg_attribute a
				   WHERE a.attrelid = rel.oid AND a.attnum > 0
					 AND NOT a.attisdropped AND a.attgenerated <> '') THEN
			notes := notes || 'generated columns are left out: the load computes them'::text;
		END IF;
		IF EXISTS (SELECT FROM pg_catalog.pg_attribute a
				   WHERE a.attrelid = rel.oid AND a.attnum > 0
					 AND NOT a.attisdropped AND a.attidentity = 'a') THEN
			notes := notes || 'has a GENERATED ALWAYS identity column: load the "insert" format with OVERRIDING SYSTEM VALUE, or use format "copy"'::text;
		END IF;

		t := jsonb_build_object('name', @extschema@.exwiw_internal_config_name(rel.oid),
								'primary_key', CASE WHEN cardinality(pk) = 1 THEN to_jsonb(pk[1]) ELSE 'null'::jsonb END);
		IF cardinality(notes) > 0 THEN
			t := t || jsonb_build_object('comment', array_to_string(notes, '; '));
		END IF;
		t := t || jsonb_build_object('belongs_tos', belongs, 'columns', cols);
		tables := tables || jsonb_build_array(t);
	END LOOP;

	RETURN jsonb_build_object('tables', tables);
END
$$;

COMMENT ON FUNCTION exwiw_config_from_catalog(name) IS
'An exwiw subset-export config for every table of a schema, from the catalog: primary keys, columns, and belongs_tos from the foreign keys; edit it to add masks';

-- Raise a config error that names the table and the key.
CREATE FUNCTION exwiw_internal_config_error(code text, table_name text,
											message text, hint text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	RAISE EXCEPTION 'exwiw: invalid config for table "%": %', table_name, message
		USING ERRCODE = code,
			  HINT = coalesce(hint, 'Fix the config; exwiw_config_from_catalog() shows a valid one for your schema.');
END
$$;

-- Check a key's JSON type; typ is a jsonb_typeof() value or 'string|null' etc.
CREATE FUNCTION exwiw_internal_config_type(value jsonb, typ text,
										   table_name text, key text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	IF jsonb_typeof(value) <> ALL (string_to_array(typ, '|')) THEN
		PERFORM @extschema@.exwiw_internal_config_error('invalid_parameter_value', table_name,
			format('key "%s" must be %s, not %s', key,
				   replace(typ, '|', ' or '), jsonb_typeof(value)));
	END IF;
END
$$;

-- Check unknown keys of an object.
CREATE FUNCTION exwiw_internal_config_keys(obj jsonb, allowed text[],
										   table_name text, path text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	k text;
BEGIN
	FOR k IN SELECT jsonb_object_keys(obj) ORDER BY 1 LOOP
		IF k <> ALL (allowed) THEN
			PERFORM @extschema@.exwiw_internal_config_error('invalid_parameter_value', table_name,
				format('unknown key "%s%s"', path, k),
				format('Valid keys%s are: %s.',
					   CASE WHEN path = '' THEN '' ELSE ' in ' || rtrim(path, '.') END,
					   array_to_string(allowed, ', ')));
		END IF;
	END LOOP;
END
$$;

-- Validate a config and return it normalized: an array of table objects
-- {name, rel, relid, pk, pk_type, filter, chunk, ignore, belongs_tos,
--  select_list} in config order, with defaults filled in and every name
-- resolved.  Errors name the table and the key.
CREATE FUNCTION exwiw_internal_check_config(config jsonb)
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	tables jsonb;
	t jsonb;
	tname text;
	relid oid;
	names text[] := '{}';
	pks jsonb := '{}';
	ignored jsonb := '{}';
	norm jsonb := '[]';
	k text;
	i int;
	j int;
	v jsonb;
	bt jsonb;
	col jsonb;
	colname text;
	att record;
	cols jsonb;
	seen text[];
	sel text[];
	expr text;
	tpl text;
	lits text[];
	refs text[];
	chunk int;
	parts text[];
BEGIN
	IF config IS NULL THEN
		RAISE EXCEPTION 'exwiw: config must not be NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF jsonb_typeof(config) = 'object' THEN
		FOR k IN SELECT jsonb_object_keys(config) ORDER BY 1 LOOP
			IF k <> 'tables' THEN
				RAISE EXCEPTION 'exwiw: invalid config: unknown top-level key "%"', k
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'A config is a JSON array of table configs, or an object whose only key is "tables".';
			END IF;
		END LOOP;
		tables := config -> 'tables';
		IF tables IS NULL THEN
			RAISE EXCEPTION 'exwiw: invalid config: the object has no key "tables"'
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'A config is a JSON array of table configs, or an object whose only key is "tables".';
		END IF;
	ELSE
		tables := config;
	END IF;
	IF jsonb_typeof(tables) <> 'array' THEN
		RAISE EXCEPTION 'exwiw: invalid config: expected an array of table configs, not %', jsonb_typeof(tables)
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'A config is a JSON array of table configs, or an object whose only key is "tables".';
	END IF;

	-- pass 1: every table's own keys
	FOR i IN 0 .. jsonb_array_length(tables) - 1 LOOP
		t := tables -> i;
		IF jsonb_typeof(t) <> 'object' THEN
			RAISE EXCEPTION 'exwiw: invalid config: table config % is a JSON %, not an object', i + 1, jsonb_typeof(t)
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF jsonb_typeof(t -> 'name') IS DISTINCT FROM 'string' THEN
			RAISE EXCEPTION 'exwiw: invalid config: table config % has no "name" string', i + 1
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Every table config needs "name": "<table>".';
		END IF;
		tname := t ->> 'name';
		PERFORM @extschema@.exwiw_internal_config_keys(t,
			ARRAY['name', 'primary_key', 'filter', 'belongs_tos', 'columns',
				  'bulk_insert_chunk_size', 'ignore', 'comment'], tname, '');
		IF tname = ANY (names) THEN
			PERFORM @extschema@.exwiw_internal_config_error('duplicate_object', tname,
				'key "name": the table appears more than once in the config');
		END IF;
		names := names || tname;

		parts := string_to_array(tname, '.');
		IF cardinality(parts) NOT IN (1, 2) OR '' = ANY (parts) THEN
			PERFORM @extschema@.exwiw_internal_config_error('invalid_name', tname,
				'key "name" must be "table" or "schema.table"');
		END IF;
		SELECT c.oid INTO relid FROM pg_catalog.pg_class c
		WHERE c.oid = to_regclass(CASE WHEN cardinality(parts) = 1 THEN quote_ident(parts[1])
									  ELSE quote_ident(parts[1]) || '.' || quote_ident(parts[2]) END)
		  AND c.relkind IN ('r', 'p');
		IF relid IS NULL THEN
			PERFORM @extschema@.exwiw_internal_config_error('undefined_table', tname,
				'key "name": there is no such table',
				'Names are resolved through search_path; qualify other schemas as "schema.table".');
		END IF;

		FOREACH k IN ARRAY ARRAY['primary_key', 'filter'] LOOP
			IF t ? k THEN
				PERFORM @extschema@.exwiw_internal_config_type(t -> k, 'string|null', tname, k);
			END IF;
		END LOOP;
		IF t ? 'comment' THEN
			PERFORM @extschema@.exwiw_internal_config_type(t -> 'comment', 'string|null', tname, 'comment');
		END IF;
		IF t ? 'ignore' THEN
			PERFORM @extschema@.exwiw_internal_config_type(t -> 'ignore', 'boolean|null', tname, 'ignore');
		END IF;
		chunk := 10000;
		IF t ? 'bulk_insert_chunk_size' AND jsonb_typeof(t -> 'bulk_insert_chunk_size') <> 'null' THEN
			v := t -> 'bulk_insert_chunk_size';
			IF jsonb_typeof(v) <> 'number' OR v::numeric <> trunc(v::numeric)
			   OR v::numeric < 1 OR v::numeric > 2147483647 THEN
				PERFORM @extschema@.exwiw_internal_config_error('invalid_parameter_value', tname,
					format('key "bulk_insert_chunk_size" must be a positive integer, not %s', v));
			END IF;
			chunk := v::int;
		END IF;

		-- primary key
		IF jsonb_typeof(t -> 'primary_key') = 'string' THEN
			IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
						   WHERE a.attrelid = relid AND a.attname = t ->> 'primary_key'
							 AND a.attnum > 0 AND NOT a.attisdropped) THEN
				PERFORM @extschema@.exwiw_internal_config_error('undefined_column', tname,
					format('key "primary_key" names column "%s", which does not exist', t ->> 'primary_key'));
			END IF;
		END IF;

		-- columns: the select list, masked
		cols := coalesce(t -> 'columns', 'null');
		IF jsonb_typeof(cols) = 'null' THEN
			SELECT coalesce(jsonb_agg(jsonb_build_object('name', a.attname) ORDER BY a.attnum), '[]')
			INTO cols
			FROM pg_catalog.pg_attribute a
			WHERE a.attrelid = relid AND a.attnum > 0 AND NOT a.attisdropped
			  AND a.attgenerated = '';
		END IF;
		PERFORM @extschema@.exwiw_internal_config_type(cols, 'array', tname, 'columns');
		IF jsonb_array_length(cols) = 0 AND NOT coalesce((t ->> 'ignore')::boolean, false) THEN
			PERFORM @extschema@.exwiw_internal_config_error('invalid_parameter_value', tname,
				'key "columns" is empty, so there is nothing to export',
				'List at least one column, leave "columns" out to export them all, or set "ignore": true.');
		END IF;
		seen := '{}';
		sel := '{}';
		FOR j IN 0 .. jsonb_array_length(cols) - 1 LOOP
			col := cols -> j;
			k := format('columns[%s]', j);
			PERFORM @extschema@.exwiw_internal_config_type(col, 'object', tname, k);
			PERFORM @extschema@.exwiw_internal_config_keys(col, ARRAY['name', 'replace_with', 'raw_sql', 'comment'],
											   tname, k || '.');
			IF jsonb_typeof(col -> 'name') IS DISTINCT FROM 'string' THEN
				PERFORM @extschema@.exwiw_internal_config_error('invalid_parameter_value', tname,
					format('key "%s.name" must be a string', k));
			END IF;
			colname := col ->> 'name';
			SELECT a.attname, a.attgenerated,
				   pg_catalog.format_type(a.atttypid, a.atttypmod) AS typ
			INTO att
			FROM pg_catalog.pg_attribute a
			WHERE a.attrelid = relid AND a.attname = colname
			  AND a.attnum > 0 AND NOT a.attisdropped;
			IF NOT FOUND THEN
				PERFORM @extschema@.exwiw_internal_config_error('undefined_column', tname,
					format('key "%s.name" names column "%s", which does not exist', k, colname));
			END IF;
			IF att.attgenerated <> '' THEN
				PERFORM @extschema@.exwiw_internal_config_error('generated_always', tname,
					format('key "%s.name" names generated column "%s", which cannot be loaded', k, colname),
					'Leave generated columns out: the load computes them.');
			END IF;
			IF colname = ANY (seen) THEN
				PERFORM @extschema@.exwiw_internal_config_error('duplicate_column', tname,
					format('key "%s.name": column "%s" is listed twice', k, colname));
			END IF;
			seen := seen || colname;
			IF col ? 'comment' THEN
				PERFORM @extschema@.exwiw_internal_config_type(col -> 'comment', 'string|null', tname, k || '.comment');
			END IF;
			IF col ? 'raw_sql' THEN
				PERFORM @extschema@.exwiw_internal_config_type(col -> 'raw_sql', 'string|null', tname, k || '.raw_sql');
			END IF;
			IF col ? 'replace_with' THEN
				PERFORM @extschema@.exwiw_internal_config_type(col -> 'replace_with', 'string|number|boolean|null',
												   tname, k || '.replace_with');
			END IF;

			IF jsonb_typeof(col -> 'raw_sql') = 'string' THEN
				-- raw_sql wins over replace_with
				expr := format('(%s) AS %I', col ->> 'raw_sql', colname);
			ELSIF jsonb_typeof(col -> 'replace_with') IN ('number', 'boolean') THEN
				expr := format('CASE WHEN %1$I IS NULL THEN NULL ELSE %2$L::%3$s END AS %1$I',
							   colname, col ->> 'replace_with', att.typ);
			ELSIF jsonb_typeof(col -> 'replace_with') = 'string' THEN
				-- template: literal text with {column} placeholders
				tpl := col ->> 'replace_with';
				lits := regexp_split_to_array(tpl, '\{[^{}]*\}');
				SELECT coalesce(array_agg(m[1] ORDER BY n), '{}') INTO refs
				FROM regexp_matches(tpl, '\{([^{}]*)\}', 'g') WITH ORDINALITY AS r(m, n);
				expr := quote_literal(lits[1]);
				FOR ri IN 1 .. coalesce(cardinality(refs), 0) LOOP
					IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
								   WHERE a.attrelid = relid AND a.attname = refs[ri]
									 AND a.attnum > 0 AND NOT a.attisdropped) THEN
						PERFORM @extschema@.exwiw_internal_config_error('undefined_column', tname,
							format('key "%s.replace_with" refers to column "{%s}", which does not exist', k, refs[ri]),
							'In a template, {name} stands for the value of column "name" of the same row.');
					END IF;
					expr := expr || format(' || (%I)::text || %L', refs[ri], lits[ri + 1]);
				END LOOP;
				expr := format('CASE WHEN %1$I IS NULL THEN NULL ELSE (%2$s)::%3$s END AS %1$I',
							   colname, expr, att.typ);
			ELSE
				expr := quote_ident(colname);
			END IF;
			sel := sel || expr;
		END LOOP;

		norm := norm || jsonb_build_array(jsonb_build_object(
			'name', tname,
			'rel', (SELECT format('%I.%I', n.nspname, c.relname)
					FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
					WHERE c.oid = relid),
			'relid', relid::bigint,
			'pk', t -> 'primary_key',
			'pk_type', (SELECT pg_catalog.format_type(a.atttypid, NULL)
						FROM pg_catalog.pg_attribute a
						WHERE a.attrelid = relid AND a.attname = t ->> 'primary_key'),
			'filter', t -> 'filter',
			'chunk', chunk,
			'ignore', coalesce((t ->> 'ignore')::boolean, false),
			'belongs_tos', coalesce(t -> 'belongs_tos', '[]'),
			'select_list', array_to_string(sel, ', ')));
		pks := pks || jsonb_build_object(tname, coalesce(t -> 'primary_key', 'null'));
		ignored := ignored || jsonb_build_object(tname, coalesce((t ->> 'ignore')::boolean, false));
	END LOOP;

	-- pass 2: belongs_tos, which refer to other tables
	FOR i IN 0 .. jsonb_array_length(norm) - 1 LOOP
		t := norm -> i;
		tname := t ->> 'name';
		PERFORM @extschema@.exwiw_internal_config_type(t -> 'belongs_tos', 'array', tname, 'belongs_tos');
		FOR j IN 0 .. jsonb_array_length(t -> 'belongs_tos') - 1 LOOP
			bt := t -> 'belongs_tos' -> j;
			k := format('belongs_tos[%s]', j);
			PERFORM @extschema@.exwiw_internal_config_type(bt, 'object', tname, k);
			PERFORM @extschema@.exwiw_internal_config_keys(bt, ARRAY['table_name', 'foreign_key', 'comment'],
											   tname, k || '.');
			FOREACH colname IN ARRAY ARRAY['table_name', 'foreign_key'] LOOP
				IF jsonb_typeof(bt -> colname) IS DISTINCT FROM 'string' THEN
					PERFORM @extschema@.exwiw_internal_config_error('invalid_parameter_value', tname,
						format('key "%s.%s" must be a string', k, colname));
				END IF;
			END LOOP;
			IF NOT pks ? (bt ->> 'table_name') THEN
				PERFORM @extschema@.exwiw_internal_config_error('undefined_table', tname,
					format('key "%s.table_name" names table "%s", which is not in the config', k, bt ->> 'table_name'),
					'A belongs_to must name a table that has its own entry in the config.');
			END IF;
			IF jsonb_typeof(pks -> (bt ->> 'table_name')) <> 'string' THEN
				PERFORM @extschema@.exwiw_internal_config_error('invalid_foreign_key', tname,
					format('key "%s.table_name" names table "%s", which has no primary_key in the config', k, bt ->> 'table_name'),
					'The foreign key refers to the parent''s primary_key, so the parent needs one.');
			END IF;
			IF (ignored -> (bt ->> 'table_name'))::boolean AND NOT (t ->> 'ignore')::boolean THEN
				PERFORM @extschema@.exwiw_internal_config_error('invalid_foreign_key', tname,
					format('key "%s.table_name" names table "%s", which is ignored', k, bt ->> 'table_name'),
					'The export would reference rows it does not contain: remove the belongs_to or unset "ignore" on the parent.');
			END IF;
			IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
						   WHERE a.attrelid = (t ->> 'relid')::oid AND a.attname = bt ->> 'foreign_key'
							 AND a.attnum > 0 AND NOT a.attisdropped) THEN
				PERFORM @extschema@.exwiw_internal_config_error('undefined_column', tname,
					format('key "%s.foreign_key" names column "%s", which does not exist', k, bt ->> 'foreign_key'));
			END IF;
		END LOOP;
	END LOOP;

	RETURN norm;
END
$$;

-- The planner.  Returns one row per exported table, in processing order
-- (parents before children; ties by name), with the extraction query, the
-- INSERT chunk size and the setval line of the file (NULL when the primary
-- key has no sequence).
--
-- Rows: the target's rows by primary key; the seed of a table with a
-- belongs_to path to the target (the shortest; ties broken by parent name,
-- then foreign key) is "foreign key IN the parent's seed", with each table's
-- filter; a table not connected to the target at all is exported in full
-- (with its filter).  Then every table also takes the rows its exported
-- children reference (closure), and a self-referencing table the ancestors of
-- its rows (recursive CTE).  Each table's query carries, as CTEs, the seeds
-- and row sets it depends on, so every query reads the same rows the others
-- do when all run in one snapshot.
CREATE FUNCTION exwiw_internal_plan(target_table text, ids text[], config jsonb)
RETURNS TABLE(seq integer, table_name text, file_name text, query text,
			  chunk_size integer, epilogue text)
LANGUAGE plpgsql VOLATILE
AS $$
#variable_conflict use_column
DECLARE
	cfg jsonb;
	tab jsonb := '{}';
	t jsonb;
	names text[];
	ec text[] := '{}';
	ef text[] := '{}';
	ep text[] := '{}';
	eb boolean[] := '{}';
	remaining text[];
	placed text[] := '{}';
	pick text;
	rs text[];
	rd text[];
	i int;
	k int;
	kc int;
	n int;
	lvl int;
	changed boolean;
	rec record;
	dist jsonb;
	path_fk jsonb := '{}';
	path_parent jsonb := '{}';
	comp text[];
	more text[];
	nm text;
	pk text;
	rel text;
	seed text[];
	seed_deps text[];
	may boolean[];
	pred text[];
	xname text[];
	xdeps text[];
	pred_deps jsonb := '{}';
	defs jsonb := '{}';
	deps jsonb := '{}';
	recursive_cte jsonb := '{}';
	parts text[];
	pdeps text[];
	selfcols text[];
	fcols text[];
	final_pred text;
	need text[];
	prev_need text[];
	ctes text[];
	is_recursive boolean;
	seqname text;
	last_value bigint;
	is_called boolean;
BEGIN
	IF target_table IS NULL THEN
		RAISE EXCEPTION 'exwiw: argument "target_table" must not be NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF ids IS NULL THEN
		RAISE EXCEPTION 'exwiw: argument "ids" must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Pass the primary keys of the target rows as a text array, for example ''{1}''.';
	END IF;

	cfg := @extschema@.exwiw_internal_check_config(coalesce(config, @extschema@.exwiw_config_from_catalog()));
	FOR i IN 0 .. jsonb_array_length(cfg) - 1 LOOP
		tab := tab || jsonb_build_object(cfg -> i ->> 'name', cfg -> i);
	END LOOP;

	IF NOT tab ? target_table THEN
		RAISE EXCEPTION 'exwiw: target table "%" is not in the config', target_table
			USING ERRCODE = 'undefined_table',
				  HINT = 'Name the target as the config does, for example "shops" or "billing.invoices".';
	END IF;
	IF (tab -> target_table ->> 'ignore')::boolean THEN
		RAISE EXCEPTION 'exwiw: target table "%" is ignored in the config', target_table
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF jsonb_typeof(tab -> target_table -> 'pk') IS DISTINCT FROM 'string' THEN
		RAISE EXCEPTION 'exwiw: target table "%" has no primary_key in the config', target_table
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'The target rows are selected by primary key.';
	END IF;

	-- the ids must be values of the target's primary key
	BEGIN
		EXECUTE format('SELECT %L::%s[]', ids::text, tab -> target_table ->> 'pk_type');
	EXCEPTION WHEN data_exception THEN
		RAISE EXCEPTION 'exwiw: ids are not values of the primary key "%" of "%" (%)',
			tab -> target_table ->> 'pk', target_table, tab -> target_table ->> 'pk_type'
			USING ERRCODE = 'invalid_parameter_value', DETAIL = SQLERRM;
	END;

	-- tables and belongs_to edges (child -> parent), ignored tables left out
	SELECT array_agg(x ORDER BY x COLLATE "C") INTO names
	FROM jsonb_object_keys(tab) AS x
	WHERE NOT (tab -> x ->> 'ignore')::boolean;
	FOREACH nm IN ARRAY names LOOP
		FOR rec IN SELECT b ->> 'table_name' AS p, b ->> 'foreign_key' AS f
				   FROM jsonb_array_elements(tab -> nm -> 'belongs_tos') AS b LOOP
			ec := ec || nm;
			ef := ef || rec.f;
			ep := ep || rec.p;
			eb := eb || false;
		END LOOP;
	END LOOP;

	-- processing order: Kahn's algorithm, smallest name first; a cycle is
	-- broken at the smallest-named table on it, whose edges into the cycle
	-- are dropped with a WARNING
	remaining := names;
	WHILE cardinality(remaining) > 0 LOOP
		SELECT min(r COLLATE "C") INTO pick
		FROM unnest(remaining) AS r
		WHERE NOT EXISTS (SELECT FROM unnest(ec, ep, eb) AS e(c, p, b)
						  WHERE e.c = r AND e.p <> r AND NOT e.b
							AND e.p <> ALL (placed));
		IF pick IS NULL THEN
			WITH RECURSIVE
				live AS (SELECT e.c, e.p FROM unnest(ec, ep, eb) AS e(c, p, b)
						 WHERE NOT e.b AND e.c <> e.p
						   AND e.c = ANY (remaining) AND e.p = ANY (remaining)),
				reach(src, dst) AS (SELECT c, p FROM live
									UNION
									SELECT reach.src, live.p FROM reach JOIN live ON live.c = reach.dst)
			SELECT array_agg(src), array_agg(dst) INTO rs, rd FROM reach;
			SELECT min(s COLLATE "C") INTO pick
			FROM unnest(rs, rd) AS x(s, d) WHERE s = d;
			IF pick IS NULL THEN
				RAISE EXCEPTION 'exwiw: internal error: no table to process next' USING ERRCODE = 'internal_error';
			END IF;
			FOR i IN 1 .. cardinality(ec) LOOP
				IF ec[i] = pick AND ep[i] <> pick AND NOT eb[i]
				   AND EXISTS (SELECT FROM unnest(rs, rd) AS x(s, d) WHERE s = ep[i] AND d = pick) THEN
					eb[i] := true;
					RAISE WARNING 'exwiw: foreign key cycle broken at %.% -> %', ec[i], ef[i], ep[i]
						USING DETAIL = format('Rows of "%s" are not selected through "%s", and the %s it references are not added to the export.',
											  ec[i], ef[i], ep[i]),
							  HINT = format('Loading needs this foreign key deferred or replica mode; or set "%s" to NULL with a raw_sql mask.', ef[i]);
				END IF;
			END LOOP;
		END IF;
		placed := placed || pick;
		remaining := array_remove(remaining, pick);
	END LOOP;

	-- belongs_to paths: breadth-first from the target over reversed edges
	dist := jsonb_build_object(target_table, 0);
	lvl := 0;
	LOOP
		changed := false;
		FOR rec IN SELECT e.c, e.f, e.p
				   FROM unnest(ec, ef, ep, eb) AS e(c, f, p, b)
				   WHERE NOT e.b AND e.c <> e.p AND dist ? e.p
					 AND (dist ->> e.p)::int = lvl
				   ORDER BY e.c COLLATE "C", e.p COLLATE "C", e.f COLLATE "C" LOOP
			IF NOT dist ? rec.c THEN
				dist := dist || jsonb_build_object(rec.c, lvl + 1);
				path_fk := path_fk || jsonb_build_object(rec.c, rec.f);
				path_parent := path_parent || jsonb_build_object(rec.c, rec.p);
				changed := true;
			END IF;
		END LOOP;
		EXIT WHEN NOT changed;
		lvl := lvl + 1;
	END LOOP;

	-- the target's connected component (edges in either direction)
	comp := ARRAY[target_table];
	LOOP
		SELECT array_agg(DISTINCT x) INTO more
		FROM (SELECT e.p AS x FROM unnest(ec, ep) AS e(c, p)
			  WHERE e.c = ANY (comp) AND e.p <> ALL (comp)
			  UNION
			  SELECT e.c FROM unnest(ec, ep) AS e(c, p)
			  WHERE e.p = ANY (comp) AND e.c <> ALL (comp)) AS s;
		EXIT WHEN more IS NULL;
		comp := comp || more;
	END LOOP;

	-- seeds, and the CTE exwiw_s_<k> of a table's seed keys
	n := cardinality(placed);
	seed := array_fill(NULL::text, ARRAY[n]);
	may := array_fill(false, ARRAY[n]);
	FOR k IN 1 .. n LOOP
		nm := placed[k];
		t := tab -> nm;
		pk := t ->> 'pk';
		seed_deps := '{}';
		IF nm = target_table THEN
			seed[k] := format('%I = ANY (%L::%s[])', pk, ids::text, t ->> 'pk_type');
		ELSIF path_parent ? nm THEN
			kc := array_position(placed, path_parent ->> nm);
			seed[k] := format('%I IN (SELECT exwiw_s_%s.%I FROM exwiw_s_%s)',
							  path_fk ->> nm, kc, tab -> placed[kc] ->> 'pk', kc);
			seed_deps := ARRAY['exwiw_s_' || kc];
			-- an unindexed foreign key makes the seed read the whole table
			IF NOT EXISTS (SELECT FROM pg_catalog.pg_index x
						   JOIN pg_catalog.pg_attribute a
							 ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
						   WHERE x.indrelid = (t ->> 'relid')::oid
							 AND a.attname = path_fk ->> nm) THEN
				RAISE NOTICE 'exwiw: foreign key %.% has no index, so selecting the rows of "%" reads the whole table',
					nm, path_fk ->> nm, nm
					USING HINT = format('CREATE INDEX ON %s (%I);', t ->> 'rel', path_fk ->> nm);
			END IF;
		ELSIF nm <> ALL (comp) THEN
			seed[k] := 'true';
		END IF;
		IF seed[k] = 'true' AND jsonb_typeof(t -> 'filter') = 'string' THEN
			seed[k] := format('(%s)', t ->> 'filter');
		ELSIF seed[k] IS NOT NULL AND jsonb_typeof(t -> 'filter') = 'string' THEN
			seed[k] := format('%s AND (%s)', seed[k], t ->> 'filter');
		END IF;
		IF seed[k] IS NOT NULL THEN
			may[k] := true;
			IF pk IS NOT NULL THEN
				defs := defs || jsonb_build_object('exwiw_s_' || k,
					format('SELECT %I FROM %s WHERE %s', pk, t ->> 'rel', seed[k]));
				deps := deps || jsonb_build_object('exwiw_s_' || k, to_jsonb(seed_deps));
			END IF;
		END IF;
		pred_deps := pred_deps || jsonb_build_object(nm, to_jsonb(seed_deps));
	END LOOP;

	-- which tables can have rows: a seed, or a child that references them
	FOR k IN REVERSE n .. 1 LOOP
		IF NOT may[k] THEN
			may[k] := EXISTS (SELECT FROM unnest(ec, ep, eb) AS e(c, p, b)
							  WHERE e.p = placed[k] AND e.c <> e.p AND NOT e.b
								AND may[array_position(placed, e.c)]);
		END IF;
	END LOOP;

	-- Row predicates (seed plus closure), children first, with two CTEs
	-- per table holding the primary key and foreign keys of rows:
	-- exwiw_f_<k>, all its rows, and exwiw_x_<k>, the rows added by closure
	-- (a superset of them).  A child's seed rows reference, through its
	-- path edge, only seed rows of the parent, which the parent has anyway;
	-- so through its path edge a child passes on only its added rows.
	pred := array_fill(NULL::text, ARRAY[n]);
	xname := array_fill(NULL::text, ARRAY[n]);
	FOR k IN REVERSE n .. 1 LOOP
		nm := placed[k];
		t := tab -> nm;
		pk := t ->> 'pk';
		rel := t ->> 'rel';
		pdeps := ARRAY(SELECT jsonb_array_elements_text(pred_deps -> nm));

		-- the columns a parent or the recursion reads from this table's rows
		SELECT coalesce(array_agg(DISTINCT e.f), '{}') INTO selfcols
		FROM unnest(ec, ef, ep) AS e(c, f, p) WHERE e.c = nm AND e.p = nm;
		SELECT coalesce(array_agg(x ORDER BY x), '{}') INTO fcols
		FROM (SELECT DISTINCT e.f AS x FROM unnest(ec, ef, eb) AS e(c, f, b)
			  WHERE e.c = nm AND NOT e.b
			  UNION SELECT pk WHERE pk IS NOT NULL) AS s;

		IF pk IS NULL THEN
			pred[k] := coalesce(seed[k], 'false');
		ELSE
			parts := '{}';
			xdeps := '{}';
			FOR rec IN SELECT e.c, e.f FROM unnest(ec, ef, ep, eb) WITH ORDINALITY AS e(c, f, p, b, o)
					   WHERE e.p = nm AND e.c <> e.p AND NOT e.b
						 AND may[array_position(placed, e.c)]
					   ORDER BY e.o LOOP
				kc := array_position(placed, rec.c);
				IF path_parent ->> rec.c = nm AND path_fk ->> rec.c = rec.f THEN
					CONTINUE WHEN xname[kc] IS NULL;
					parts := parts || format('SELECT %1$s.%2$I FROM %1$s', xname[kc], rec.f);
					xdeps := xdeps || xname[kc];
				ELSE
					parts := parts || format('SELECT exwiw_f_%1$s.%2$I FROM exwiw_f_%1$s', kc, rec.f);
					xdeps := xdeps || ('exwiw_f_' || kc);
				END IF;
			END LOOP;
			pdeps := pdeps || xdeps;
			IF cardinality(parts) > 0 THEN
				defs := defs || jsonb_build_object('exwiw_x_' || k,
					format('SELECT %s FROM %s WHERE %I IN (%s)',
						   (SELECT string_agg(quote_ident(x), ', ') FROM unnest(fcols) x),
						   rel, pk, array_to_string(parts, ' UNION ALL ')));
				deps := deps || jsonb_build_object('exwiw_x_' || k, to_jsonb(xdeps));
				xname[k] := 'exwiw_x_' || k;
			END IF;
			IF seed[k] IS NOT NULL THEN
				parts := format('SELECT %I FROM %s WHERE %s', pk, rel, seed[k]) || parts;
			END IF;
			IF cardinality(parts) = 0 THEN
				pred[k] := 'false';
			ELSIF cardinality(parts) = 1 AND seed[k] IS NOT NULL THEN
				pred[k] := seed[k];
			ELSE
				pred[k] := format('%I IN (%s)', pk, array_to_string(parts, ' UNION ALL '));
			END IF;
		END IF;
		pred_deps := pred_deps || jsonb_build_object(nm, to_jsonb(pdeps));

		IF cardinality(selfcols) > 0 THEN
			defs := defs || jsonb_build_object('exwiw_f_' || k,
				format('SELECT %s FROM %s WHERE %s UNION SELECT %s FROM %s exwiw_t JOIN exwiw_f_%s exwiw_a ON exwiw_t.%I IN (%s)',
					   (SELECT string_agg(quote_ident(x), ', ') FROM unnest(fcols) x),
					   rel, pred[k],
					   (SELECT string_agg('exwiw_t.' || quote_ident(x), ', ') FROM unnest(fcols) x),
					   rel, k, pk,
					   (SELECT string_agg('exwiw_a.' || quote_ident(x), ', ') FROM unnest(selfcols) x)));
			recursive_cte := recursive_cte || jsonb_build_object('exwiw_f_' || k, true);
			-- ancestors are added rows too
			IF may[k] THEN
				xname[k] := 'exwiw_f_' || k;
			END IF;
		ELSE
			defs := defs || jsonb_build_object('exwiw_f_' || k,
				format('SELECT %s FROM %s WHERE %s',
					   (SELECT string_agg(quote_ident(x), ', ') FROM unnest(fcols) x),
					   rel, pred[k]));
		END IF;
		deps := deps || jsonb_build_object('exwiw_f_' || k, to_jsonb(pdeps));
	END LOOP;

	-- one extraction query per table
	FOR k IN 1 .. n LOOP
		nm := placed[k];
		t := tab -> nm;
		pk := t ->> 'pk';
		rel := t ->> 'rel';
		IF pk IS NOT NULL AND EXISTS (SELECT FROM unnest(ec, ep) AS e(c, p) WHERE e.c = nm AND e.p = nm) THEN
			final_pred := format('%I IN (SELECT exwiw_f_%s.%I FROM exwiw_f_%s)', pk, k, pk, k);
			need := ARRAY['exwiw_f_' || k];
		ELSE
			final_pred := pred[k];
			need := ARRAY(SELECT jsonb_array_elements_text(pred_deps -> nm));
		END IF;

		-- every CTE the query needs, transitively
		LOOP
			prev_need := need;
			SELECT array_agg(DISTINCT x) INTO need
			FROM (SELECT unnest(need) AS x
				  UNION
				  SELECT jsonb_array_elements_text(deps -> y) FROM unnest(need) AS y) AS s;
			need := coalesce(need, '{}');
			EXIT WHEN cardinality(need) = cardinality(prev_need);
		END LOOP;

		-- seeds first, parents first; then row sets, children first.  The
		-- row sets are materialized: computed once from the sets they
		-- depend on, they drive the index scans of the tables that use
		-- them, rather than the planner scanning a big table from each row
		-- of a small one (seen with categories <- products).  The seeds
		-- stay inlined: joined, they make better plans for large exports.
		SELECT coalesce(array_agg(format('%s AS %s(%s)', x,
										 CASE WHEN x LIKE 'exwiw_s_%' OR recursive_cte ? x THEN ''
											  ELSE 'MATERIALIZED ' END,
										 defs ->> x)
								  ORDER BY CASE WHEN x LIKE 'exwiw_s_%' THEN 0 ELSE 1 END,
										   CASE WHEN x LIKE 'exwiw_s_%' THEN 1 ELSE -1 END
										   * substr(x, 9)::int, x), '{}'),
			   bool_or(recursive_cte ? x)
		INTO ctes, is_recursive
		FROM unnest(need) AS x;

		-- A self-referencing table lists parents before children (by depth
		-- in the exported tree, then key), so that a load in several
		-- statements never inserts a child before its parent.  Rows in a
		-- cycle of their own have no depth and come first.
		SELECT coalesce(array_agg(DISTINCT e.f ORDER BY e.f), '{}') INTO selfcols
		FROM unnest(ec, ef, ep) AS e(c, f, p) WHERE e.c = nm AND e.p = nm;
		IF pk IS NOT NULL AND cardinality(selfcols) > 0 THEN
			ctes := ctes || format(
				'exwiw_depth_%1$s(exwiw_dk, exwiw_dd) AS ('
				'SELECT %2$I, 0 FROM %3$s WHERE %2$I IN (SELECT %2$I FROM exwiw_f_%1$s) AND %4$s '
				'UNION ALL '
				'SELECT exwiw_c.%2$I, exwiw_d.exwiw_dd + 1 FROM %3$s exwiw_c JOIN exwiw_depth_%1$s exwiw_d ON %5$s '
				'WHERE exwiw_c.%2$I IN (SELECT %2$I FROM exwiw_f_%1$s) AND exwiw_c.%2$I <> exwiw_d.exwiw_dk '
				'AND exwiw_d.exwiw_dd < (SELECT count(*) FROM exwiw_f_%1$s))',
				k, pk, rel,
				(SELECT string_agg(format('(%1$I IS NULL OR %1$I = %2$I OR %1$I NOT IN (SELECT %2$I FROM exwiw_f_%3$s))',
										  x, pk, k), ' AND ')
				 FROM unnest(selfcols) x),
				(SELECT '(' || string_agg(format('exwiw_c.%I = exwiw_d.exwiw_dk', x), ' OR ') || ')'
				 FROM unnest(selfcols) x));
			is_recursive := true;
			query := 'WITH RECURSIVE ' || array_to_string(ctes, ', ') || ' '
					 || format('SELECT %s FROM %s LEFT JOIN (SELECT exwiw_dk, max(exwiw_dd) AS exwiw_dd FROM exwiw_depth_%s GROUP BY exwiw_dk) exwiw_dep'
							   ' ON exwiw_dep.exwiw_dk = %s.%I WHERE %s ORDER BY exwiw_dep.exwiw_dd NULLS FIRST, %s.%I',
							   t ->> 'select_list', rel, k, rel, pk, final_pred, rel, pk);
		ELSE
			query := CASE WHEN cardinality(ctes) > 0
						  THEN 'WITH ' || CASE WHEN is_recursive THEN 'RECURSIVE ' ELSE '' END
							   || array_to_string(ctes, ', ') || ' '
						  ELSE '' END
					 || format('SELECT %s FROM %s WHERE %s', t ->> 'select_list', rel, final_pred)
					 || CASE WHEN pk IS NOT NULL THEN format(' ORDER BY %I', pk) ELSE '' END;
		END IF;

		-- setval from the source sequence of a serial or identity key
		epilogue := NULL;
		IF pk IS NOT NULL THEN
			seqname := pg_catalog.pg_get_serial_sequence(rel, pk);
			IF seqname IS NOT NULL THEN
				EXECUTE format('SELECT last_value, is_called FROM %s', seqname)
					INTO last_value, is_called;
				epilogue := format('SELECT pg_catalog.setval(%L, %s, %s);', seqname, last_value,
								   CASE WHEN is_called THEN 'true' ELSE 'false' END);
			END IF;
		END IF;

		seq := k;
		table_name := nm;
		-- 001, 002, ...: three digits, or as many as the largest number
		-- needs, so that the names sort in load order
		file_name := format('insert-%s-%s.sql',
							lpad(k::text, greatest(3, length(n::text)), '0'), nm);
		chunk_size := (t ->> 'chunk')::int;
		RETURN NEXT;
	END LOOP;
END
$$;

CREATE FUNCTION exwiw_plan(target_table text, ids text[], config jsonb DEFAULT NULL)
RETURNS TABLE(seq integer, table_name text, file_name text, query text)
LANGUAGE sql VOLATILE
AS $$
	SELECT p.seq, p.table_name, p.file_name, p.query
	FROM @extschema@.exwiw_internal_plan(target_table, ids, config) AS p
	ORDER BY p.seq
$$;

COMMENT ON FUNCTION exwiw_plan(text, text[], jsonb) IS
'The subset export plan: one extraction query per table, in processing order (parents first); a NULL config means exwiw_config_from_catalog()';

CREATE FUNCTION exwiw_export(
	target_table text,
	ids text[],
	config jsonb DEFAULT NULL,
	format text DEFAULT 'insert')
RETURNS TABLE(file_name text, chunk text)
AS 'MODULE_PATHNAME', 'exwiw_export'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION exwiw_export(text, text[], jsonb, text) IS
'Stream a subset export: every table''s file (insert-NNN-<table>.sql) as (file_name, chunk) rows, in processing order, all tables from one snapshot';

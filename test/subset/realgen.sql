-- test/subset/realgen.sql: a generic generator of FK-consistent rows for
-- THREE tenants, for any schema, read from its catalog (test/t/subset_real_schemas.sh).
--
-- SELECT realgen.fill(rows_per_tenant [, p_arms]) fills every ordinary or partitioned
-- table outside pg_catalog, information_schema and realgen (partitions get
-- their rows through their root), and records, in schema realgen:
--   realgen.tbl   one row per table: fill order, key columns, status
--                 ('filled', or why it could not be filled)
--   realgen.edge  every relation between tables the generator honours:
--                 'fk' (declared), 'rails' (<singular>_id naming a table
--                 with an id key of a type that holds it, no FK), 'poly'
--                 (<x>_type/<x>_id, <x>_id an integer or the type of a
--                 table's id key, a uuid, no FK)
--   realgen.row   every generated row: table, its tenant, its key (the text
--                 of ROW(key columns)), its values (to_jsonb of the row)
--   realgen.link  every parent a row points to, by edge
-- Every parent is a row of the SAME tenant: a row's tenant is the tenant
-- of everything it points to.  The tables are walked in FK order; an edge
-- whose parent is not filled yet (a cycle, a self reference) is written
-- NULL and set by an UPDATE in a second pass.  Row k of a tenant points to
-- row k of the parent where there is one.  Row 1 sets every relation it can;
-- row 2 sets as few nullable relations as its constraints let it (one
-- where a CHECK wants one: the union of paths); row 3 and later (more rows
-- per tenant) none where they can.  A row that cannot be
-- inserted (a CHECK, a unique index) is retried in other shapes; a table
-- none of whose shapes goes in is reported.  User triggers are disabled
-- while filling (GitLab's assign their own ids).
--
-- A polymorphic pair points to the tables its arms prefer (poly_tables()),
-- else to tables with relations of their own, row k to the k-th.  P_ARMS
-- names the types of pairs the catalog cannot tell, from the application's
-- models: `belongs_to :taggable, polymorphic: true` with `has_many
-- :taggings, as: :taggable` in Transaction is {"taggings.taggable_type":
-- ["Transaction"]}; a Rails delegated type, `delegated_type :accountable,
-- types: %w[Depository Loan]`, is {"accounts.accountable_type":
-- {"delegated": ["Depository", "Loan"]}}: a row of such a type's table is
-- its record's (the account's), and so are the rows below it (the
-- check's "reachable" goes up such a pair).  Class names map to tables as
-- Rails maps them (Loan -> loans, CreditCard -> credit_cards).  Such a
-- pair is set on every row, and its table gets
-- rows_per_tenant rows per type and tenant: row k of a tenant points to
-- type (k-1) % n, to that table's row (k-1) / n + 1 of the tenant, so that
-- every row of each type's table has its owner.
--
-- After fill(), realgen.grow() gives a tenant many rows of a table per
-- parent (copies of its first row, realgen.clone(), with copies of that
-- row's children in the tables named), recorded as fill()'s: GitLab's
-- issues per project, for a limit to cut.  realgen.check(), loaded_keys()
-- and outside() read the database the files were loaded into.
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS realgen CASCADE;
CREATE SCHEMA realgen;

CREATE TABLE realgen.tbl (
	rel regclass PRIMARY KEY,
	name text NOT NULL,
	key_cols text[],			-- primary key, else every column
	ord int,
	status text,
	partkey jsonb,				-- routing values: column -> text
	key_type oid,				-- the type of a one-column key
	per_row int NOT NULL DEFAULT 1	-- rows per tenant and per rows_per_tenant (P_ARMS)
);
CREATE TABLE realgen.edge (
	id serial PRIMARY KEY,
	child regclass NOT NULL,
	cols text[] NOT NULL,
	parent regclass,			-- NULL for poly (chosen per row)
	refcols text[] NOT NULL,
	kind text NOT NULL,			-- fk, rails, poly
	type_col text,				-- poly: the _type column
	arms regclass[],			-- poly: the tables of P_ARMS, in order
	arm_types text[],			-- poly: their type values
	delegated bool NOT NULL DEFAULT false,	-- poly: a delegated type (P_ARMS)
	nn bool NOT NULL,
	conname text
);
CREATE TABLE realgen.row (
	rel regclass NOT NULL,
	rowno int NOT NULL,
	tenant int NOT NULL,
	k int NOT NULL,
	key text NOT NULL,
	data jsonb NOT NULL,
	loc text NOT NULL,			-- tableoid:ctid, for the second pass
	deferred int[] NOT NULL DEFAULT '{}',	-- edges to set in the second pass
	PRIMARY KEY (rel, rowno)
);
CREATE INDEX ON realgen.row (rel, tenant, k);
CREATE TABLE realgen.link (
	child regclass NOT NULL,
	child_rowno int NOT NULL,
	parent regclass NOT NULL,
	parent_rowno int NOT NULL,
	edge int NOT NULL,
	kind text NOT NULL
);
-- (check() and outside() walk the links both ways)
CREATE INDEX ON realgen.link (parent, parent_rowno);
CREATE INDEX ON realgen.link (child, child_rowno);
CREATE TABLE realgen.log (rel regclass, msg text);
-- the columns, with what value() needs from the catalog
CREATE TABLE realgen.col (
	rel regclass NOT NULL,
	attnum int NOT NULL,
	attname text NOT NULL,
	ftype text NOT NULL,		-- format_type, for the casts
	base oid NOT NULL,			-- the type, or a domain's base type
	mod int NOT NULL,
	cat char NOT NULL,
	nn bool NOT NULL,
	hasdef bool NOT NULL,
	skip bool NOT NULL,			-- generated, or GENERATED ALWAYS AS IDENTITY
	lit text,					-- a value a CHECK names
	PRIMARY KEY (rel, attnum)
);

-- English plural / singular, the Rails way for the common cases
CREATE FUNCTION realgen.plural(s text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN s ~ '[^aeiou]y$' THEN left(s, -1) || 'ies'
		WHEN s ~ '(s|x|z|ch|sh)$' THEN s || 'es'
		ELSE s || 's' END $$;
CREATE FUNCTION realgen.singular(s text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN s ~ 'ies$' THEN left(s, -3) || 'y'
		WHEN s ~ '(s|x|z|ch|sh)es$' THEN left(s, -2)
		WHEN s ~ 's$' THEN left(s, -1)
		ELSE s END $$;
-- CreditCard -> credit_cards, Ci::Build -> ci_builds (Rails' tableize,
-- the module path joined by _)
CREATE FUNCTION realgen.tableize(cls text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT realgen.plural(lower(regexp_replace(regexp_replace(replace(cls, '::', '_'),
		'([A-Z]+)([A-Z][a-z])', '\1_\2', 'g'), '([a-z0-9])([A-Z])', '\1_\2', 'g'))) $$;
-- merge_requests -> MergeRequest
CREATE FUNCTION realgen.classify(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(initcap(w), '' ORDER BY n)
	FROM unnest(string_to_array(realgen.singular(t), '_')) WITH ORDINALITY AS u(w, n) $$;

-- NOT NULL, or CHECK ((col IS NOT NULL)) (GitLab's way before validating)
CREATE FUNCTION realgen.nn(rel oid, att text, attnotnull bool) RETURNS bool LANGUAGE sql STABLE AS $$
	SELECT attnotnull OR EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = rel AND k.contype = 'c'
								 AND pg_get_constraintdef(k.oid) = format('CHECK ((%s IS NOT NULL))', quote_ident(att))) $$;

-- Can a column of type a hold the keys of a column of type b?  The same
-- type, or two integer types (Rails made references bigint in 5.1).
CREATE FUNCTION realgen.same_key_type(a oid, b oid) RETURNS bool LANGUAGE sql IMMUTABLE AS $$
	SELECT a = b OR (a IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype)
					 AND b IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype)) $$;

-- The tables and their relations, from the catalog; P_ARMS as fill's.
CREATE FUNCTION realgen.analyze(p_arms jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	r record;
	b text;
	m text[];
	vals text[];
	pk text;
	arm record;
BEGIN
	INSERT INTO realgen.tbl (rel, name, key_cols)
	SELECT c.oid, c.relname,
		   coalesce((SELECT array_agg(a.attname::text ORDER BY x.n)
					 FROM pg_constraint k, unnest(k.conkey) WITH ORDINALITY x(attnum, n)
					 JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = x.attnum
					 WHERE k.conrelid = c.oid AND k.contype = 'p'),
					(SELECT array_agg(a.attname::text ORDER BY a.attnum) FROM pg_attribute a
					 WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped))
	FROM pg_class c
	WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
	  AND c.relnamespace::regnamespace::text NOT IN ('pg_catalog', 'information_schema', 'realgen')
	  AND c.relnamespace::regnamespace::text NOT LIKE 'pg_toast%';
	UPDATE realgen.tbl t SET key_type = a.atttypid FROM pg_attribute a
	WHERE cardinality(t.key_cols) = 1 AND a.attrelid = t.rel AND a.attname = t.key_cols[1];

	-- routing values of partitioned tables: from the first bound of a
	-- partition (LIST: its first value; RANGE: its lower bound); HASH
	-- routes anything
	FOR r IN SELECT t.rel, p.partstrat, p.partattrs FROM realgen.tbl t JOIN pg_partitioned_table p ON p.partrelid = t.rel LOOP
		CONTINUE WHEN r.partstrat = 'h';
		SELECT pg_get_expr(c.relpartbound, c.oid) INTO b
		FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = r.rel AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
		  AND pg_get_expr(c.relpartbound, c.oid) NOT LIKE '%FROM (MINVALUE%'
		ORDER BY c.relname LIMIT 1;
		CONTINUE WHEN b IS NULL;
		IF r.partstrat = 'l' THEN
			m := regexp_match(b, 'IN \((''(?:[^'']|'''')*''|[^,)]+)');
		ELSE
			m := regexp_match(b, 'FROM \(([^)]*)\)');
			m := string_to_array(m[1], ', ');
		END IF;
		CONTINUE WHEN m IS NULL;
		vals := array(SELECT CASE WHEN v ~ '^''' THEN replace(substr(v, 2, length(v) - 2), '''''', '''')
								  ELSE v END FROM unnest(m) v);
		UPDATE realgen.tbl t SET partkey = (
			SELECT jsonb_object_agg(a.attname, vals[x.n])
			FROM unnest(r.partattrs::int2[]) WITH ORDINALITY x(attnum, n)
			JOIN pg_attribute a ON a.attrelid = r.rel AND a.attnum = x.attnum
			WHERE x.n <= cardinality(vals))
		WHERE t.rel = r.rel;
	END LOOP;

	-- declared foreign keys (of a partition: of its root)
	INSERT INTO realgen.edge (child, cols, parent, refcols, kind, nn, conname)
	SELECT DISTINCT ON (ch.oid, k.conname) ch.oid, ca.cols, pa.oid, ra.cols, 'fk', ca.nn, k.conname
	FROM pg_constraint k
	JOIN pg_class ch ON ch.oid = coalesce(pg_partition_root(k.conrelid), k.conrelid)
	JOIN pg_class pa ON pa.oid = coalesce(pg_partition_root(k.confrelid), k.confrelid)
	CROSS JOIN LATERAL (SELECT array_agg(a.attname::text ORDER BY x.n) AS cols, bool_or(realgen.nn(k.conrelid, a.attname, a.attnotnull)) AS nn
						FROM unnest(k.conkey) WITH ORDINALITY x(attnum, n)
						JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = x.attnum) ca
	CROSS JOIN LATERAL (SELECT array_agg(a.attname::text ORDER BY x.n) AS cols
						FROM unnest(k.confkey) WITH ORDINALITY x(attnum, n)
						JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = x.attnum) ra
	WHERE k.contype = 'f' AND k.conparentid = 0
	  AND ch.oid IN (SELECT rel FROM realgen.tbl) AND pa.oid IN (SELECT rel FROM realgen.tbl);

	-- polymorphic pairs: <x>_type (text) and <x>_id (an integer, or the
	-- type of a table's id key: a uuid), no FK on <x>_id
	INSERT INTO realgen.edge (child, cols, parent, refcols, kind, type_col, nn)
	SELECT t.rel, ARRAY[i.attname::text], NULL, ARRAY['id'], 'poly', ty.attname, realgen.nn(t.rel, i.attname, i.attnotnull)
	FROM realgen.tbl t
	JOIN pg_attribute i ON i.attrelid = t.rel AND i.attnum > 0 AND NOT i.attisdropped AND i.attname ~ '_id$'
		 AND (i.atttypid IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype)
			  OR EXISTS (SELECT 1 FROM realgen.tbl p WHERE p.key_cols = '{id}' AND p.key_type = i.atttypid))
	JOIN pg_attribute ty ON ty.attrelid = t.rel AND ty.attname = regexp_replace(i.attname, '_id$', '_type')
		 AND ty.atttypid IN ('text'::regtype, 'varchar'::regtype)
	WHERE NOT EXISTS (SELECT 1 FROM realgen.edge e WHERE e.child = t.rel AND i.attname = ANY (e.cols));

	-- the types P_ARMS names for a pair: their tables
	FOR arm IN SELECT key, value FROM jsonb_each(coalesce(p_arms, '{}')) LOOP
		IF NOT EXISTS (SELECT 1 FROM realgen.edge e JOIN realgen.tbl t ON t.rel = e.child
					   WHERE e.kind = 'poly' AND t.name || '.' || e.type_col = arm.key) THEN
			RAISE EXCEPTION 'realgen: arms: % is no polymorphic pair', arm.key;
		END IF;
		UPDATE realgen.edge e SET delegated = jsonb_typeof(arm.value) = 'object', (arms, arm_types) = (
			SELECT array_agg(p.rel ORDER BY v.n), array_agg(v.cls ORDER BY v.n)
			FROM jsonb_array_elements_text(coalesce(arm.value -> 'delegated', arm.value)) WITH ORDINALITY v(cls, n)
			JOIN realgen.tbl p ON p.name = realgen.tableize(v.cls) AND p.key_cols = '{id}'
			JOIN pg_attribute a ON a.attrelid = e.child AND a.attname = e.cols[1]
			WHERE realgen.same_key_type(a.atttypid, p.key_type))
		FROM realgen.tbl t
		WHERE t.rel = e.child AND e.kind = 'poly' AND t.name || '.' || e.type_col = arm.key;
		INSERT INTO realgen.log
		SELECT t.rel, format('arms: %s names %s, which maps to no table with an id key of its type', arm.key, v.cls)
		FROM realgen.edge e JOIN realgen.tbl t ON t.rel = e.child,
			 jsonb_array_elements_text(coalesce(arm.value -> 'delegated', arm.value)) v(cls)
		WHERE e.kind = 'poly' AND t.name || '.' || e.type_col = arm.key AND NOT (v.cls = ANY (coalesce(e.arm_types, '{}')));
	END LOOP;
	UPDATE realgen.tbl t SET per_row = (SELECT max(cardinality(e.arms)) FROM realgen.edge e WHERE e.child = t.rel)
	WHERE EXISTS (SELECT 1 FROM realgen.edge e WHERE e.child = t.rel AND e.arms IS NOT NULL);

	-- Rails: <singular>_id naming a table whose key is id, of a type that
	-- holds it, no FK
	INSERT INTO realgen.edge (child, cols, parent, refcols, kind, nn)
	SELECT t.rel, ARRAY[a.attname::text], p.rel, ARRAY['id'], 'rails', realgen.nn(t.rel, a.attname, a.attnotnull)
	FROM realgen.tbl t
	JOIN pg_attribute a ON a.attrelid = t.rel AND a.attnum > 0 AND NOT a.attisdropped AND a.attname ~ '_id$'
	JOIN realgen.tbl p ON p.name = realgen.plural(regexp_replace(a.attname, '_id$', '')) AND p.key_cols = '{id}'
		 AND realgen.same_key_type(a.atttypid, p.key_type)
	WHERE NOT EXISTS (SELECT 1 FROM realgen.edge e WHERE e.child = t.rel AND a.attname = ANY (e.cols))
	  AND NOT (t.key_cols = ARRAY[a.attname::text]);
END $$;

-- The tables a polymorphic pair points to first, where they exist (the
-- Rails models such pairs name most: GitLab's, OpenStreetMap's)
CREATE FUNCTION realgen.poly_tables() RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
	SELECT ARRAY['issues', 'merge_requests', 'projects', 'namespaces', 'users', 'notes', 'changesets',
				 'diary_entries'] $$;

-- The fill order: a table after the parents of its NOT NULL relations and
-- the tables of its P_ARMS; after its other parents too where a cycle
-- allows.
CREATE FUNCTION realgen.order_tables() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	step int := 0;
	n int;
	pick regclass;
BEGIN
	LOOP
		step := step + 1;
		WITH cand AS (
			SELECT t.rel FROM realgen.tbl t WHERE t.ord IS NULL AND NOT EXISTS (
				SELECT 1 FROM realgen.edge e JOIN realgen.tbl p ON p.rel = e.parent OR p.rel = ANY (e.arms)
				WHERE e.child = t.rel AND p.rel <> t.rel AND (e.nn OR e.arms IS NOT NULL) AND p.ord IS NULL)),
		easy AS (
			SELECT c.rel FROM cand c WHERE NOT EXISTS (
				SELECT 1 FROM realgen.edge e JOIN realgen.tbl p ON p.rel = e.parent
				WHERE e.child = c.rel AND e.parent <> c.rel AND p.ord IS NULL)
			-- a polymorphic pair: after the tables its arms prefer, or the
			-- tables of its P_ARMS
			AND NOT EXISTS (
				SELECT 1 FROM realgen.edge e, realgen.tbl p
				WHERE e.child = c.rel AND e.kind = 'poly'
				  AND CASE WHEN e.arms IS NOT NULL THEN p.rel = ANY (e.arms) ELSE p.name = ANY (realgen.poly_tables()) END
				  AND p.rel <> c.rel AND p.ord IS NULL))
		UPDATE realgen.tbl t SET ord = step FROM easy WHERE t.rel = easy.rel;
		GET DIAGNOSTICS n = ROW_COUNT;
		CONTINUE WHEN n > 0;
		-- a cycle: the candidate with the fewest unfilled parents goes first
		SELECT t.rel INTO pick FROM realgen.tbl t
		WHERE t.ord IS NULL AND NOT EXISTS (
			SELECT 1 FROM realgen.edge e JOIN realgen.tbl p ON p.rel = e.parent OR p.rel = ANY (e.arms)
			WHERE e.child = t.rel AND p.rel <> t.rel AND (e.nn OR e.arms IS NOT NULL) AND p.ord IS NULL)
		ORDER BY (SELECT count(*) FROM realgen.edge e JOIN realgen.tbl p ON p.rel = e.parent
				  WHERE e.child = t.rel AND e.parent <> t.rel AND p.ord IS NULL), t.name
		LIMIT 1;
		EXIT WHEN pick IS NULL;
		UPDATE realgen.tbl SET ord = step WHERE rel = pick;
	END LOOP;
	UPDATE realgen.tbl SET status = 'not filled: a cycle of NOT NULL foreign keys (or of P_ARMS)' WHERE ord IS NULL;
END $$;

-- What value() needs, from the catalog, once.
CREATE FUNCTION realgen.columns() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	r record;
	typ oid;
	md int;
BEGIN
	FOR r IN SELECT a.*, format_type(a.atttypid, a.atttypmod) AS ft FROM realgen.tbl t
			 JOIN pg_attribute a ON a.attrelid = t.rel AND a.attnum > 0 AND NOT a.attisdropped LOOP
		typ := r.atttypid;
		md := r.atttypmod;
		WHILE (SELECT typtype FROM pg_type WHERE oid = typ) = 'd' LOOP
			SELECT typbasetype, typtypmod INTO typ, md FROM pg_type WHERE oid = typ;
		END LOOP;
		INSERT INTO realgen.col VALUES (r.attrelid, r.attnum, r.attname, r.ft, typ, md,
			(SELECT typcategory FROM pg_type WHERE oid = typ), realgen.nn(r.attrelid, r.attname, r.attnotnull), r.atthasdef,
			r.attgenerated <> '' OR r.attidentity = 'a',
			CASE WHEN typ IN ('json'::regtype, 'jsonb'::regtype) THEN
				CASE WHEN EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = r.attrelid AND k.contype = 'c'
								  AND pg_get_constraintdef(k.oid) ~ ('json[b]?_typeof\(' || r.attname || '\) = ''array'''))
					 THEN '[]' ELSE '{}' END
			ELSE
				-- a CHECK (col = ANY (ARRAY['a'::text, ...])) or (col = 'a'): its first value
				(SELECT replace((regexp_match(pg_get_constraintdef(k.oid),
						'\m' || r.attname || '\)?(?:::text)? = (?:ANY \(\(?ARRAY\[)?''((?:[^'']|'''')*)'''))[1], '''''', '''')
				 FROM pg_constraint k WHERE k.conrelid = r.attrelid AND k.contype = 'c'
				   AND k.conkey = ARRAY[r.attnum] LIMIT 1)
			END);
	END LOOP;
END $$;

-- A value for a column of a row.
CREATE FUNCTION realgen.value(c realgen.col, rowno int) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	s text;
BEGIN
	IF c.lit IS NOT NULL THEN RETURN c.lit; END IF;
	IF c.cat = 'A' THEN RETURN '{}'; END IF;
	IF c.cat = 'E' THEN
		RETURN (SELECT enumlabel FROM pg_enum WHERE enumtypid = c.base ORDER BY enumsortorder LIMIT 1);
	END IF;
	CASE c.base
		WHEN 'int2'::regtype, 'int4'::regtype, 'int8'::regtype, 'numeric'::regtype,
			 'float4'::regtype, 'float8'::regtype, 'oid'::regtype THEN RETURN rowno::text;
		WHEN 'bool'::regtype THEN RETURN 'false';
		WHEN 'text'::regtype, 'varchar'::regtype, 'bpchar'::regtype, 'name'::regtype THEN
			s := rowno || '-' || c.attname;
			IF c.mod > 4 AND c.mod - 4 < length(s) THEN
				s := left(CASE WHEN c.mod - 4 < 8 THEN rowno::text ELSE s END, c.mod - 4);
			END IF;
			RETURN s;
		WHEN 'date'::regtype THEN RETURN ('2025-01-01'::date + rowno)::text;
		WHEN 'timestamp'::regtype, 'timestamptz'::regtype THEN
			RETURN ('2025-01-01'::timestamp + rowno * interval '1 minute')::text;
		WHEN 'time'::regtype THEN RETURN '12:00';
		WHEN 'interval'::regtype THEN RETURN '1 day';
		WHEN 'uuid'::regtype THEN RETURN md5(c.rel::text || rowno)::uuid::text;
		WHEN 'bytea'::regtype THEN RETURN '\x' || md5(c.rel::text || c.attname || rowno);
		WHEN 'inet'::regtype, 'cidr'::regtype THEN RETURN '10.0.' || (rowno / 250) || '.' || (rowno % 250 + 1);
		WHEN 'tsvector'::regtype THEN RETURN '';
		WHEN 'daterange'::regtype THEN RETURN '[2025-01-01,2025-02-01)';
		WHEN 'xml'::regtype THEN RETURN '<a/>';
		ELSE RETURN NULL;
	END CASE;
END $$;

-- Insert one row of a table in one shape; returns NULL, or the error.
CREATE FUNCTION realgen.try_insert(t realgen.tbl, p_tenant int, p_k int, p_rowno int, nullable_on int[],
								   set_optional bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a realgen.col;
	e realgen.edge;
	v_data jsonb := '{}';
	v text;
	cols text[] := '{}';
	lits text[] := '{}';
	prow realgen.row;
	v_deferred int[] := '{}';
	links jsonb := '[]';
	fkcols text[];
	ret record;
	i int;
	ptype text;
	c text;
BEGIN
	SELECT coalesce(array_agg(x), '{}') INTO fkcols FROM realgen.edge e2, unnest(e2.cols) x WHERE e2.child = t.rel;
	-- plain columns
	FOR a IN SELECT * FROM realgen.col WHERE rel = t.rel ORDER BY attnum LOOP
		CONTINUE WHEN a.skip;
		CONTINUE WHEN a.attname = ANY (fkcols);
		IF t.partkey ? a.attname THEN
			v := t.partkey ->> a.attname;
		ELSIF a.nn OR set_optional OR a.attname = ANY (t.key_cols) THEN
			v := realgen.value(a, p_rowno);
			IF v IS NULL AND a.hasdef THEN CONTINUE; END IF;
		ELSE
			CONTINUE;
		END IF;
		v_data := v_data || jsonb_build_object(a.attname, v);
	END LOOP;
	-- relations: a parent of the same tenant
	FOR e IN SELECT * FROM realgen.edge WHERE child = t.rel ORDER BY id LOOP
		IF NOT e.nn AND e.arms IS NULL AND NOT (e.id = ANY (nullable_on)) THEN
			FOREACH c IN ARRAY e.cols LOOP
				IF NOT v_data ? c THEN v_data := v_data || jsonb_build_object(c, NULL); END IF;
			END LOOP;
			CONTINUE;
		END IF;
		prow := NULL;
		ptype := NULL;
		IF e.kind = 'poly' AND e.arms IS NOT NULL THEN
			-- P_ARMS: row k to type (k-1) % n, that table's row (k-1) / n + 1
			SELECT r.* INTO prow FROM realgen.row r
			WHERE r.tenant = p_tenant AND r.rel = e.arms[(p_k - 1) % cardinality(e.arms) + 1]
			ORDER BY (r.k = (p_k - 1) / cardinality(e.arms) + 1) DESC, r.k LIMIT 1;
			IF prow.rel IS NOT NULL THEN
				v_data := v_data || jsonb_build_object(e.type_col, e.arm_types[(p_k - 1) % cardinality(e.arms) + 1]);
			END IF;
		ELSIF e.kind = 'poly' THEN
			-- a filled table with an id key that the column holds, of this
			-- tenant, other than this one
			SELECT r.* INTO prow FROM realgen.row r
			WHERE r.tenant = p_tenant AND r.rel = (
				SELECT p.rel FROM realgen.tbl p
				WHERE p.key_cols = '{id}' AND p.rel <> t.rel
				  AND realgen.same_key_type((SELECT c2.base FROM realgen.col c2 WHERE c2.rel = t.rel AND c2.attname = e.cols[1]),
											p.key_type)
				  AND EXISTS (SELECT 1 FROM realgen.row r2 WHERE r2.rel = p.rel AND r2.tenant = p_tenant)
				ORDER BY array_position(realgen.poly_tables(), p.name) NULLS LAST,
						 -- else a table with relations of its own (a tenant's)
						 EXISTS (SELECT 1 FROM realgen.edge e3 WHERE e3.child = p.rel) DESC,
						 p.ord, p.name
				OFFSET (p_k - 1) LIMIT 1)
			ORDER BY (r.k = p_k) DESC, r.k LIMIT 1;
			IF prow.rel IS NOT NULL THEN
				ptype := realgen.classify((SELECT name FROM realgen.tbl WHERE rel = prow.rel));
				v_data := v_data || jsonb_build_object(e.type_col, ptype);
			END IF;
		ELSIF e.parent = t.rel THEN
			-- a self reference: row k points to row k-1 of the tenant (second pass)
			IF e.nn THEN
				RETURN 'a NOT NULL self reference';
			END IF;
			IF p_k > 1 THEN v_deferred := v_deferred || e.id; END IF;
			FOREACH c IN ARRAY e.cols LOOP
				IF NOT v_data ? c THEN v_data := v_data || jsonb_build_object(c, NULL); END IF;
			END LOOP;
			CONTINUE;
		ELSIF (SELECT p.ord >= t.ord FROM realgen.tbl p WHERE p.rel = e.parent) THEN
			-- the parent comes later: second pass
			IF e.nn THEN RETURN 'parent filled later'; END IF;
			v_deferred := v_deferred || e.id;
			FOREACH c IN ARRAY e.cols LOOP
				IF NOT v_data ? c THEN v_data := v_data || jsonb_build_object(c, NULL); END IF;
			END LOOP;
			CONTINUE;
		ELSE
			SELECT r.* INTO prow FROM realgen.row r
			WHERE r.rel = e.parent AND r.tenant = p_tenant ORDER BY (r.k = p_k) DESC, r.k LIMIT 1;
		END IF;
		IF prow.rel IS NULL THEN
			IF e.nn THEN RETURN format('no row of tenant %s in %s', p_tenant, coalesce(e.parent::text, 'any table')); END IF;
			CONTINUE;
		END IF;
		FOR i IN 1 .. cardinality(e.cols) LOOP
			IF v_data ? e.cols[i] AND v_data ->> e.cols[i] IS DISTINCT FROM prow.data ->> e.refcols[i]
			   AND v_data ->> e.cols[i] IS NOT NULL THEN
				RETURN format('overlapping foreign keys disagree on %s', e.cols[i]);
			END IF;
			v_data := v_data || jsonb_build_object(e.cols[i], prow.data ->> e.refcols[i]);
		END LOOP;
		links := links || jsonb_build_object('parent', prow.rel::oid, 'rowno', prow.rowno, 'edge', e.id, 'kind', e.kind);
	END LOOP;
	-- the INSERT
	FOR c, v IN SELECT key, value FROM jsonb_each_text(v_data) LOOP
		cols := cols || quote_ident(c);
		lits := lits || (quote_nullable(v) || '::' || (SELECT ftype FROM realgen.col WHERE rel = t.rel AND attname = c));
	END LOOP;
	BEGIN
		EXECUTE format('INSERT INTO %s AS x (%s) VALUES (%s) RETURNING to_jsonb(x) AS d, (%s)::text AS key, x.tableoid::text || '':'' || x.ctid::text AS loc',
					   t.rel, array_to_string(cols, ', '), array_to_string(lits, ', '),
					   CASE WHEN cardinality(t.key_cols) = 1 THEN 'x.' || quote_ident(t.key_cols[1]) || '::text'
							ELSE 'ROW(' || (SELECT string_agg('x.' || quote_ident(kc), ', ') FROM unnest(t.key_cols) kc) || ')' END)
		INTO ret;
	EXCEPTION WHEN OTHERS THEN
		RETURN SQLERRM;
	END;
	INSERT INTO realgen.row (rel, rowno, tenant, k, key, data, loc, deferred)
	VALUES (t.rel, p_rowno, p_tenant, p_k, ret.key, ret.d, ret.loc, v_deferred);
	INSERT INTO realgen.link (child, child_rowno, parent, parent_rowno, edge, kind)
	SELECT t.rel, p_rowno, (l ->> 'parent')::oid::regclass, (l ->> 'rowno')::int, (l ->> 'edge')::int, l ->> 'kind'
	FROM jsonb_array_elements(links) l;
	RETURN NULL;
END $$;

-- The second pass: the relations whose parent was filled after the row.
CREATE FUNCTION realgen.second_pass() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	r realgen.row;
	e realgen.edge;
	prow realgen.row;
	sets text[];
	links jsonb;
	n int := 0;
	i int;
BEGIN
	FOR r IN SELECT * FROM realgen.row WHERE deferred <> '{}' ORDER BY rel, rowno LOOP
		sets := '{}';
		links := '[]';
		FOR e IN SELECT * FROM realgen.edge WHERE id = ANY (r.deferred) ORDER BY id LOOP
			IF e.parent = r.rel THEN
				SELECT * INTO prow FROM realgen.row p WHERE p.rel = r.rel AND p.tenant = r.tenant AND p.k = r.k - 1;
			ELSE
				SELECT * INTO prow FROM realgen.row p WHERE p.rel = e.parent AND p.tenant = r.tenant
				ORDER BY (p.k = r.k) DESC, p.k LIMIT 1;
			END IF;
			CONTINUE WHEN prow.rel IS NULL;
			FOR i IN 1 .. cardinality(e.cols) LOOP
				sets := sets || format('%I = %L', e.cols[i], prow.data ->> e.refcols[i]);
			END LOOP;
			links := links || jsonb_build_object('parent', prow.rel::oid, 'rowno', prow.rowno, 'edge', e.id, 'kind', e.kind);
		END LOOP;
		CONTINUE WHEN sets = '{}';
		BEGIN
			EXECUTE format('UPDATE %s x SET %s WHERE x.tableoid = %s AND x.ctid = %L',
						   r.rel, array_to_string(sets, ', '), split_part(r.loc, ':', 1), split_part(r.loc, ':', 2));
		EXCEPTION WHEN OTHERS THEN
			INSERT INTO realgen.log VALUES (r.rel, 'second pass: ' || SQLERRM);
			CONTINUE;
		END;
		INSERT INTO realgen.link (child, child_rowno, parent, parent_rowno, edge, kind)
		SELECT r.rel, r.rowno, (l ->> 'parent')::oid::regclass, (l ->> 'rowno')::int, (l ->> 'edge')::int, l ->> 'kind'
		FROM jsonb_array_elements(links) l;
		n := n + 1;
	END LOOP;
	-- the rows' values as they are now
	FOR r IN SELECT * FROM realgen.row WHERE deferred <> '{}' LOOP
		EXECUTE format('SELECT to_jsonb(x) FROM %s x WHERE x.tableoid = %s AND x.ctid = %L',
					   r.rel, split_part(r.loc, ':', 1), split_part(r.loc, ':', 2)) INTO r.data;
		IF r.data IS NOT NULL THEN
			UPDATE realgen.row SET data = r.data WHERE rel = r.rel AND rowno = r.rowno;
		END IF;
	END LOOP;
	RETURN n;
END $$;

-- A partitioned table without partitions (GitLab's dynamic ones, made by
-- the application at run time) holds no row: give it a DEFAULT partition.
CREATE FUNCTION realgen.default_partitions() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	r record;
	n int := 0;
BEGIN
	FOR r IN SELECT c.oid::regclass AS rel, c.relname, c.relnamespace::regnamespace AS nsp
			 FROM pg_class c WHERE c.relkind = 'p'
			   AND c.relnamespace::regnamespace::text NOT IN ('pg_catalog', 'information_schema', 'realgen')
			   AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhparent = c.oid) LOOP
		EXECUTE format('CREATE TABLE %s.%I PARTITION OF %s DEFAULT', r.nsp, left(r.relname, 55) || '_default', r.rel);
		n := n + 1;
	END LOOP;
	RETURN n;
END $$;

-- Row k of a tenant in the first shape that goes in; the shapes are sets of
-- the table's nullable relations to set: for row 1 every one (with every
-- nullable column set, then without), each one alone, none; for row 2
-- each one alone (the last first), none, every one; for row 3 and later
-- none first (a row that only the relations it must have tie: a delegated
-- type's row that only its record reaches), then as row 2.  Returns the
-- shape, or NULL (the first error in *err).
CREATE FUNCTION realgen.insert_row(t realgen.tbl, p_tenant int, p_k int, p_rowno int, nl int[],
								   prefer int[], OUT shape int[], OUT opt bool, OUT err text)
LANGUAGE plpgsql AS $$
DECLARE
	shapes int[][] := '{}';
	opts bool[] := '{}';
	e text;
	i int;
BEGIN
	IF prefer IS NOT NULL THEN
		shapes := array_append(shapes, NULL::int[]);
	END IF;
	IF p_k = 1 THEN
		e := realgen.try_insert(t, p_tenant, p_k, p_rowno, nl, true);
		IF e IS NULL THEN shape := nl; opt := true; RETURN; END IF;
		err := e;
		e := realgen.try_insert(t, p_tenant, p_k, p_rowno, nl, false);
		IF e IS NULL THEN shape := nl; opt := false; RETURN; END IF;
	END IF;
	IF p_k > 2 THEN
		e := realgen.try_insert(t, p_tenant, p_k, p_rowno, '{}', false);
		IF e IS NULL THEN shape := '{}'; opt := false; RETURN; END IF;
		err := e;
	END IF;
	FOR i IN REVERSE cardinality(nl) .. 1 LOOP
		e := realgen.try_insert(t, p_tenant, p_k, p_rowno, ARRAY[nl[i]], false);
		IF e IS NULL THEN shape := ARRAY[nl[i]]; opt := false; RETURN; END IF;
		err := coalesce(err, e);
	END LOOP;
	e := realgen.try_insert(t, p_tenant, p_k, p_rowno, '{}', false);
	IF e IS NULL THEN shape := '{}'; opt := false; RETURN; END IF;
	err := coalesce(err, e);
	IF p_k > 1 AND cardinality(nl) > 1 THEN
		e := realgen.try_insert(t, p_tenant, p_k, p_rowno, nl, false);
		IF e IS NULL THEN shape := nl; opt := false; RETURN; END IF;
	END IF;
END $$;

CREATE FUNCTION realgen.fill(per_tenant int, p_arms jsonb DEFAULT '{}') RETURNS TABLE (tables int, filled int, rows_made bigint, updated int,
														   default_partitions int)
LANGUAGE plpgsql AS $$
DECLARE
	t realgen.tbl;
	tenant int;
	k int;
	nl int[];
	res record;
	shapes jsonb;
	firsterr text;
	err text;
	rowno int;
BEGIN
	default_partitions := realgen.default_partitions();
	PERFORM realgen.analyze(p_arms);
	PERFORM realgen.columns();
	PERFORM realgen.order_tables();
	-- user triggers off while filling
	FOR t IN SELECT * FROM realgen.tbl WHERE ord IS NOT NULL LOOP
		EXECUTE format('ALTER TABLE %s DISABLE TRIGGER USER', t.rel);
	END LOOP;
	FOR t IN SELECT * FROM realgen.tbl WHERE ord IS NOT NULL ORDER BY ord, name LOOP
		SELECT coalesce(array_agg(id ORDER BY id), '{}') INTO nl FROM realgen.edge WHERE child = t.rel AND NOT nn AND arms IS NULL;
		firsterr := NULL;
		shapes := '{}';
		<<tenants>>
		FOR tenant IN 1 .. 3 LOOP
			FOR k IN 1 .. per_tenant * t.per_row LOOP
				rowno := (tenant - 1) * per_tenant * t.per_row + k;
				err := NULL;
				-- the shape that row k of tenant 1 took, first
				IF shapes ? k::text THEN
					err := realgen.try_insert(t, tenant, k, rowno,
											  array(SELECT jsonb_array_elements_text(shapes -> k::text -> 's')::int),
											  (shapes -> k::text ->> 'o')::bool);
					CONTINUE WHEN err IS NULL;
				END IF;
				res := realgen.insert_row(t, tenant, k, rowno, nl, NULL);
				IF res.shape IS NOT NULL THEN
					IF NOT shapes ? k::text THEN
						shapes := shapes || jsonb_build_object(k::text, jsonb_build_object('s', to_jsonb(res.shape), 'o', res.opt));
					END IF;
					CONTINUE;
				END IF;
				firsterr := coalesce(firsterr, err, res.err);
				INSERT INTO realgen.log VALUES (t.rel, format('tenant %s row %s: %s', tenant, k, coalesce(err, res.err)));
				-- row 1 of tenant 1 fits no shape: the others will not either
				EXIT tenants WHEN tenant = 1 AND k = 1;
			END LOOP;
		END LOOP;
		UPDATE realgen.tbl SET status = CASE
			WHEN (SELECT count(DISTINCT r.tenant) FROM realgen.row r WHERE r.rel = t.rel) = 3 THEN 'filled'
			WHEN EXISTS (SELECT 1 FROM realgen.row r WHERE r.rel = t.rel) THEN 'partly filled: ' || firsterr
			ELSE 'not filled: ' || firsterr END
		WHERE rel = t.rel;
	END LOOP;
	updated := realgen.second_pass();
	FOR t IN SELECT * FROM realgen.tbl WHERE ord IS NOT NULL LOOP
		EXECUTE format('ALTER TABLE %s ENABLE TRIGGER USER', t.rel);
	END LOOP;
	tables := (SELECT count(*) FROM realgen.tbl);
	filled := (SELECT count(*) FROM realgen.tbl WHERE status = 'filled');
	rows_made := (SELECT count(*) FROM realgen.row);
	RETURN NEXT;
END $$;

-- A copy of row P_FROM of P_REL as row P_ROWNO (k P_K, the template's
-- tenant), the way fill() would have made it: every plain column whose
-- value() depends on the row number gets the new row's (keys and unique
-- columns stay unique; a partition key, an enum, a CHECK's literal stay
-- the template's), P_VALS sets columns to the given text, and every
-- relation is the template's except those P_PARENTS names (an edge's
-- first column -> the rowno of the parent row it points to instead; a
-- polymorphic pair keeps the template's parent table).  The row and its
-- links are recorded as fill()'s are.  Raises when the row does not go in
-- (the caller disables user triggers, as fill() does).
CREATE FUNCTION realgen.clone(p_rel regclass, p_from int, p_rowno int, p_k int,
							  p_parents jsonb DEFAULT '{}', p_vals jsonb DEFAULT '{}') RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	t realgen.tbl;
	src realgen.row;
	a realgen.col;
	e realgen.edge;
	prow realgen.row;
	v_data jsonb;
	fkcols text[];
	v text;
	i int;
	ret record;
	cols text;
	links jsonb := '[]';
BEGIN
	SELECT * INTO STRICT t FROM realgen.tbl WHERE rel = p_rel;
	SELECT * INTO STRICT src FROM realgen.row WHERE rel = p_rel AND rowno = p_from;
	v_data := src.data;
	-- (a polymorphic pair's type column too: it names the parent's table)
	SELECT coalesce(array_agg(x), '{}') INTO fkcols
	FROM realgen.edge e2, unnest(e2.cols || e2.type_col) x WHERE e2.child = p_rel AND x IS NOT NULL;
	FOR a IN SELECT * FROM realgen.col WHERE rel = p_rel AND NOT skip AND NOT (attname = ANY (fkcols)) LOOP
		CONTINUE WHEN v_data ->> a.attname IS NULL OR coalesce(t.partkey ? a.attname, false);
		v := realgen.value(a, p_rowno);
		IF v IS DISTINCT FROM realgen.value(a, p_from) THEN
			v_data := v_data || jsonb_build_object(a.attname, v);
		END IF;
	END LOOP;
	v_data := v_data || p_vals;
	-- the template's links, but those repointed
	FOR e IN SELECT * FROM realgen.edge WHERE child = p_rel ORDER BY id LOOP
		IF p_parents ? e.cols[1] THEN
			SELECT r.* INTO STRICT prow FROM realgen.row r
			WHERE r.rowno = (p_parents ->> e.cols[1])::int
			  AND r.rel = coalesce(e.parent, (SELECT l.parent FROM realgen.link l
											  WHERE l.child = p_rel AND l.child_rowno = p_from AND l.edge = e.id));
			FOR i IN 1 .. cardinality(e.cols) LOOP
				v_data := v_data || jsonb_build_object(e.cols[i], prow.data -> e.refcols[i]);
			END LOOP;
			links := links || jsonb_build_object('parent', prow.rel::oid, 'rowno', prow.rowno, 'edge', e.id, 'kind', e.kind);
		ELSE
			links := links || coalesce((SELECT jsonb_agg(jsonb_build_object('parent', l.parent::oid, 'rowno', l.parent_rowno,
																			'edge', l.edge, 'kind', l.kind))
										FROM realgen.link l WHERE l.child = p_rel AND l.child_rowno = p_from AND l.edge = e.id), '[]');
		END IF;
	END LOOP;
	SELECT string_agg(quote_ident(c.attname), ', ' ORDER BY c.attnum) INTO cols FROM realgen.col c WHERE c.rel = p_rel AND NOT c.skip;
	EXECUTE format('INSERT INTO %s AS x (%s) SELECT %s FROM pg_catalog.jsonb_populate_record(NULL::%s, $1)'
				   ' RETURNING to_jsonb(x) AS d, (%s)::text AS key, x.tableoid::text || '':'' || x.ctid::text AS loc',
				   t.rel, cols, cols, t.rel,
				   CASE WHEN cardinality(t.key_cols) = 1 THEN 'x.' || quote_ident(t.key_cols[1]) || '::text'
						ELSE 'ROW(' || (SELECT string_agg('x.' || quote_ident(kc), ', ') FROM unnest(t.key_cols) kc) || ')' END)
	USING v_data INTO ret;
	INSERT INTO realgen.row (rel, rowno, tenant, k, key, data, loc)
	VALUES (p_rel, p_rowno, src.tenant, p_k, ret.key, ret.d, ret.loc);
	INSERT INTO realgen.link (child, child_rowno, parent, parent_rowno, edge, kind)
	SELECT p_rel, p_rowno, (l ->> 'parent')::oid::regclass, (l ->> 'rowno')::int, (l ->> 'edge')::int, l ->> 'kind'
	FROM jsonb_array_elements(links) l;
END $$;

-- After fill(): more rows of table P_TABLE for tenant P_TENANT, many per
-- parent (fill() makes a row or two per parent): P_COUNTS[i] under the
-- tenant's row k = i of the parent the relation on column P_COL points to,
-- each a copy (clone()) of the tenant's row k = 1 of P_TABLE whose
-- created_at is P_START + ((j - 1) / 3) * P_STEP, j counting the new rows
-- in turn across the parents (the parents' rows interleave in time; three
-- in a row share a timestamp), with copies of that row's children in the
-- tables P_CHILDREN names, pointing to the copy.  Returns the rows made.
CREATE FUNCTION realgen.grow(p_table text, p_tenant int, p_col text, p_counts int[], p_children text[],
							 p_start timestamp, p_step interval) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	trel regclass := (SELECT rel FROM realgen.tbl WHERE name = p_table);
	pe realgen.edge;
	tmpl realgen.row;
	r record;
	ch record;
	prow int;
	newrow int;
	n int := 0;
	rel regclass;
BEGIN
	SELECT * INTO STRICT pe FROM realgen.edge WHERE child = trel AND cols[1] = p_col AND parent IS NOT NULL
	ORDER BY kind = 'fk' DESC, cardinality(cols), id LIMIT 1;
	SELECT * INTO STRICT tmpl FROM realgen.row WHERE realgen.row.rel = trel AND tenant = p_tenant AND k = 1;
	FOR rel IN SELECT trel UNION SELECT t.rel FROM realgen.tbl t WHERE t.name = ANY (p_children) LOOP
		EXECUTE format('ALTER TABLE %s DISABLE TRIGGER USER', rel);
	END LOOP;
	FOR r IN SELECT c.i, row_number() OVER (ORDER BY s, c.i) AS j
			 FROM unnest(p_counts) WITH ORDINALITY c(cnt, i), generate_series(1, c.cnt) s ORDER BY 2 LOOP
		SELECT p.rowno INTO STRICT prow FROM realgen.row p WHERE p.rel = pe.parent AND p.tenant = p_tenant AND p.k = r.i;
		newrow := (SELECT max(x.rowno) + 1 FROM realgen.row x WHERE x.rel = trel);
		PERFORM realgen.clone(trel, tmpl.rowno, newrow, 1000 + r.j::int, jsonb_build_object(p_col, prow),
							  jsonb_build_object('created_at', p_start + ((r.j - 1) / 3) * p_step));
		n := n + 1;
		-- the template's children in P_CHILDREN, every relation to the
		-- template pointing to the copy
		FOR ch IN SELECT l.child, l.child_rowno, jsonb_object_agg(ed.cols[1], newrow) AS parents
				  FROM realgen.link l JOIN realgen.edge ed ON ed.id = l.edge JOIN realgen.tbl ct ON ct.rel = l.child
				  WHERE l.parent = trel AND l.parent_rowno = tmpl.rowno AND ct.name = ANY (p_children)
				  GROUP BY 1, 2 ORDER BY 1, 2 LOOP
			PERFORM realgen.clone(ch.child, ch.child_rowno, (SELECT max(x.rowno) + 1 FROM realgen.row x WHERE x.rel = ch.child),
								  1000 + r.j::int, ch.parents);
			n := n + 1;
		END LOOP;
	END LOOP;
	FOR rel IN SELECT trel UNION SELECT t.rel FROM realgen.tbl t WHERE t.name = ANY (p_children) LOOP
		EXECUTE format('ALTER TABLE %s ENABLE TRIGGER USER', rel);
	END LOOP;
	RETURN n;
END $$;

-- The key (as realgen.row.key) of every row of the tables P_TABLES names
-- that this database holds (the loaded rows, where the files were loaded).
CREATE FUNCTION realgen.loaded_keys(p_tables text[]) RETURNS TABLE (rel regclass, key text)
LANGUAGE plpgsql AS $$
DECLARE
	t realgen.tbl;
BEGIN
	FOR t IN SELECT * FROM realgen.tbl WHERE name = ANY (p_tables) LOOP
		RETURN QUERY EXECUTE format('SELECT %L::regclass, %s FROM %s x', t.rel,
			CASE WHEN cardinality(t.key_cols) = 1 THEN 'x.' || quote_ident(t.key_cols[1]) || '::text'
				 ELSE 'ROW(' || (SELECT string_agg('x.' || quote_ident(kc), ', ') FROM unnest(t.key_cols) kc) || ')::text' END,
			t.rel);
	END LOOP;
END $$;

-- Where the files were loaded: the loaded rows of the tables P_TABLES names
-- that P_PRED (an SQL condition on a row x, e.g. "x.created_at < '...'")
-- holds for, per table: how many, and those of them that no loaded row
-- points to (a row a window or a limit leaves out comes only as the parent
-- of a row kept), with their keys.  "Points to": a relation the generator
-- made (realgen.link), or a one-column belongs_to of CFG (the export's
-- config, as check()'s) to the table's one-column key, by the loaded
-- child's value.
CREATE FUNCTION realgen.outside(p_tables text[], p_pred text, p_cfg jsonb DEFAULT '[]')
RETURNS TABLE (tbl text, n bigint, unneeded bigint, sample text) LANGUAGE plpgsql AS $$
DECLARE
	t realgen.tbl;
	bt record;
BEGIN
	CREATE TEMP TABLE outside_o (rowno int, key text, needed bool NOT NULL DEFAULT false) ON COMMIT DROP;
	FOR t IN SELECT * FROM realgen.tbl WHERE name = ANY (p_tables) ORDER BY name LOOP
		TRUNCATE outside_o;
		EXECUTE format('INSERT INTO outside_o (rowno, key) SELECT r.rowno, r.key FROM %s x'
					   ' JOIN realgen.row r ON r.rel = %L::regclass AND r.key = %s WHERE %s',
					   t.rel, t.rel,
					   CASE WHEN cardinality(t.key_cols) = 1 THEN 'x.' || quote_ident(t.key_cols[1]) || '::text'
							ELSE 'ROW(' || (SELECT string_agg('x.' || quote_ident(kc), ', ') FROM unnest(t.key_cols) kc) || ')::text' END,
					   p_pred);
		-- the generator's relations
		UPDATE outside_o o SET needed = true
		WHERE EXISTS (SELECT 1 FROM realgen.link l JOIN realgen.row c ON c.rel = l.child AND c.rowno = l.child_rowno
					  JOIN realgen.loaded_keys(ARRAY[(SELECT ct.name FROM realgen.tbl ct WHERE ct.rel = l.child)]) lk
						   ON lk.rel = c.rel AND lk.key = c.key
					  WHERE l.parent = t.rel AND l.parent_rowno = o.rowno);
		-- the config's
		FOR bt IN
			SELECT c.rel AS crel, b ->> 'foreign_key' AS fk, b ->> 'foreign_type' AS ftype, b ->> 'type_value' AS tval
			FROM jsonb_array_elements(p_cfg) te
			CROSS JOIN LATERAL jsonb_array_elements(coalesce(te -> 'belongs_tos', '[]')) b
			JOIN realgen.tbl c ON c.name = te ->> 'name'
			WHERE b ->> 'table_name' = t.name AND cardinality(t.key_cols) = 1 AND b ->> 'foreign_key' NOT LIKE '%,%'
			  AND NOT coalesce((b ->> 'ignore')::bool, false)
		LOOP
			EXECUTE format('UPDATE outside_o o SET needed = true WHERE NOT o.needed'
						   ' AND EXISTS (SELECT 1 FROM %s x WHERE x.%I::text = o.key %s)',
						   bt.crel, bt.fk,
						   CASE WHEN bt.ftype IS NOT NULL THEN format('AND x.%I::text = %L', bt.ftype, bt.tval) ELSE '' END);
		END LOOP;
		RETURN QUERY SELECT t.name, count(*), count(*) FILTER (WHERE NOT o.needed),
							string_agg(o.key, ' ' ORDER BY o.key) FILTER (WHERE NOT o.needed)
					 FROM outside_o o;
	END LOOP;
	DROP TABLE outside_o;
END $$;

-- In the database the files were loaded into (realgen's tables copied
-- there): what the export of TARGET's tenant-1 rows got wrong.  DECIDED
-- maps a table to the test's decision for it ('all', 'ignore').  Rows:
--   leak     a loaded row of another tenant: a row with a relation (its
--            tenant is that of its parents), a row of a delegated type (its
--            record's) or a row of the target table
--   missing  a row reachable from the target rows by a relation of any
--            kind (fk, rails, poly), child-wards (and up a delegated type's
--            pair: the rows of the account's depository are the
--            account's), not loaded
--   refused  such a row in a table decided 'ignore' (the export refused
--            the table: no rule tied it to the target)
--   missing-parent
--            a row that those rows point to, by a relation of any kind,
--            transitively (a delegated type's row: the tenant's account
--            points to its depository), not loaded (the load checks only
--            the declared foreign keys)
--   unknown  a loaded row the generator did not make
-- Tables decided 'all' have no leaks (that was decided), nor have the rows
-- their rows reference (parents they need), by the generator's relations
-- or by the belongs_tos of CFG (the export's config, an array of table
-- entries: the edges exwiw infers that the generator does not know);
-- tables decided 'ignore' have no missing rows (nor paths through them).
-- The '<kind>-via' rows name the relations that reach the missing rows.
CREATE FUNCTION realgen.check(target text, decided jsonb, cfg jsonb DEFAULT '[]')
RETURNS TABLE (kind text, tbl text, n bigint, sample text) LANGUAGE plpgsql AS $$
DECLARE
	t realgen.tbl;
	trel regclass := (SELECT rel FROM realgen.tbl WHERE name = target);
	bt record;
	before bigint;
BEGIN
	CREATE TEMP TABLE loaded (rel regclass, key text) ON COMMIT DROP;
	FOR t IN SELECT * FROM realgen.tbl WHERE EXISTS (SELECT 1 FROM realgen.row r WHERE r.rel = realgen.tbl.rel) LOOP
		EXECUTE format('INSERT INTO loaded SELECT %L, %s FROM %s x', t.rel,
					   CASE WHEN cardinality(t.key_cols) = 1 THEN 'x.' || quote_ident(t.key_cols[1]) || '::text'
							ELSE 'ROW(' || (SELECT string_agg('x.' || quote_ident(kc), ', ') FROM unnest(t.key_cols) kc) || ')::text' END,
					   t.rel);
	END LOOP;
	-- (every table, then without those decided 'ignore')
	CREATE TEMP TABLE reachable ON COMMIT DROP AS
	WITH RECURSIVE down(rel, rowno) AS (
		SELECT r.rel, r.rowno FROM realgen.row r WHERE r.rel = trel AND r.tenant = 1
		UNION
		SELECT n.rel, n.rowno FROM down d
		CROSS JOIN LATERAL (
			SELECT l.child, l.child_rowno FROM realgen.link l
			WHERE l.parent = d.rel AND l.parent_rowno = d.rowno
			UNION ALL
			SELECT l.parent, l.parent_rowno FROM realgen.link l JOIN realgen.edge ed ON ed.id = l.edge
			WHERE l.child = d.rel AND l.child_rowno = d.rowno AND ed.delegated) n(rel, rowno))
	SELECT * FROM down;
	CREATE TEMP TABLE expected ON COMMIT DROP AS
	WITH RECURSIVE down(rel, rowno) AS (
		SELECT r.rel, r.rowno FROM realgen.row r WHERE r.rel = trel AND r.tenant = 1
		UNION
		SELECT n.rel, n.rowno FROM down d
		CROSS JOIN LATERAL (
			SELECT l.child, l.child_rowno FROM realgen.link l
			WHERE l.parent = d.rel AND l.parent_rowno = d.rowno
			UNION ALL
			SELECT l.parent, l.parent_rowno FROM realgen.link l JOIN realgen.edge ed ON ed.id = l.edge
			WHERE l.child = d.rel AND l.child_rowno = d.rowno AND ed.delegated) n(rel, rowno)
		JOIN realgen.tbl c ON c.rel = n.rel
		WHERE coalesce(decided ->> c.name, '') <> 'ignore')
	SELECT * FROM down;
	-- what those rows point to, transitively
	CREATE TEMP TABLE up ON COMMIT DROP AS
	WITH RECURSIVE up(rel, rowno) AS (
		SELECT e.rel, e.rowno FROM expected e
		UNION
		SELECT l.parent, l.parent_rowno FROM up u
		JOIN realgen.link l ON l.child = u.rel AND l.child_rowno = u.rowno
		JOIN realgen.tbl p ON p.rel = l.parent
		WHERE coalesce(decided ->> p.name, '') <> 'ignore')
	SELECT u.* FROM up u WHERE NOT EXISTS (SELECT 1 FROM expected e WHERE e.rel = u.rel AND e.rowno = u.rowno);
	-- the rows that the rows of tables decided 'all' reference, transitively:
	-- they come in as those rows' parents, whoever's they are (the issue's
	-- "a table whose rows come in only as parents of other tenants' rows is
	-- fine"), so they are no leak
	CREATE TEMP TABLE needed (rel regclass, rowno int, PRIMARY KEY (rel, rowno)) ON COMMIT DROP;
	INSERT INTO needed
	SELECT DISTINCT r.rel, r.rowno FROM loaded l JOIN realgen.row r ON r.rel = l.rel AND r.key = l.key
	JOIN realgen.tbl tb ON tb.rel = l.rel
	WHERE decided ->> tb.name = 'all';
	LOOP
		before := (SELECT count(*) FROM needed);
		INSERT INTO needed
		SELECT k.parent, k.parent_rowno FROM needed u
		JOIN realgen.link k ON k.child = u.rel AND k.child_rowno = u.rowno
		ON CONFLICT DO NOTHING;
		-- the config's one-column belongs_tos to a one-column key, from the
		-- loaded rows (the child's values in this database)
		FOR bt IN
			SELECT c.rel AS crel, c.key_cols AS ckey, b ->> 'foreign_key' AS fk,
				   p.rel AS prel, b ->> 'foreign_type' AS ftype, b ->> 'type_value' AS tval
			FROM jsonb_array_elements(cfg) te
			CROSS JOIN LATERAL jsonb_array_elements(coalesce(te -> 'belongs_tos', '[]')) b
			JOIN realgen.tbl c ON c.name = te ->> 'name'
			JOIN realgen.tbl p ON p.name = b ->> 'table_name'
			WHERE cardinality(p.key_cols) = 1 AND b ->> 'foreign_key' NOT LIKE '%,%'
			  AND EXISTS (SELECT 1 FROM needed u WHERE u.rel = c.rel)
		LOOP
			EXECUTE format('INSERT INTO needed SELECT pr.rel, pr.rowno FROM needed u'
						   ' JOIN realgen.row cr ON cr.rel = u.rel AND cr.rowno = u.rowno'
						   ' JOIN %s x ON %s = cr.key'
						   ' JOIN realgen.row pr ON pr.rel::pg_catalog.oid = %s AND pr.key = x.%I::text'
						   ' WHERE u.rel::pg_catalog.oid = %s %s ON CONFLICT DO NOTHING',
						   bt.crel,
						   CASE WHEN cardinality(bt.ckey) = 1 THEN 'x.' || quote_ident(bt.ckey[1]) || '::text'
								ELSE 'ROW(' || (SELECT string_agg('x.' || quote_ident(kc), ', ') FROM unnest(bt.ckey) kc) || ')::text' END,
						   bt.prel::pg_catalog.oid, bt.fk, bt.crel::pg_catalog.oid,
						   CASE WHEN bt.ftype IS NOT NULL THEN format('AND x.%I::text = %L', bt.ftype, bt.tval) ELSE '' END);
		END LOOP;
		EXIT WHEN (SELECT count(*) FROM needed) = before;
	END LOOP;
	RETURN QUERY
	SELECT 'leak', tb.name, count(*), string_agg(DISTINCT r.key, ' ' ORDER BY r.key)
	FROM loaded l JOIN realgen.row r ON r.rel = l.rel AND r.key = l.key JOIN realgen.tbl tb ON tb.rel = l.rel
	WHERE r.tenant <> 1 AND coalesce(decided ->> tb.name, '') <> 'all'
	  AND NOT EXISTS (SELECT 1 FROM needed n WHERE n.rel = r.rel AND n.rowno = r.rowno)
	  AND (r.rel = trel OR EXISTS (SELECT 1 FROM realgen.link k WHERE k.child = r.rel AND k.child_rowno = r.rowno)
		   -- a delegated type's row: its record's
		   OR EXISTS (SELECT 1 FROM realgen.link k JOIN realgen.edge ed ON ed.id = k.edge
					  WHERE k.parent = r.rel AND k.parent_rowno = r.rowno AND ed.delegated))
	GROUP BY tb.name;
	RETURN QUERY
	SELECT 'missing', tb.name, count(*), string_agg(DISTINCT r.key, ' ' ORDER BY r.key)
	FROM expected e JOIN realgen.row r ON r.rel = e.rel AND r.rowno = e.rowno JOIN realgen.tbl tb ON tb.rel = e.rel
	WHERE NOT EXISTS (SELECT 1 FROM loaded l WHERE l.rel = r.rel AND l.key = r.key)
	GROUP BY tb.name;
	RETURN QUERY
	SELECT 'unknown', tb.name, count(*), string_agg(DISTINCT l.key, ' ' ORDER BY l.key)
	FROM loaded l JOIN realgen.tbl tb ON tb.rel = l.rel
	WHERE NOT EXISTS (SELECT 1 FROM realgen.row r WHERE r.rel = l.rel AND r.key = l.key)
	GROUP BY tb.name;
	-- how the missing rows hang on the target: the kinds of the relations
	-- that reach them (why they are missing, for the report)
	RETURN QUERY
	SELECT 'missing-via', tb.name, count(*), string_agg(DISTINCT v.v, '; ')
	FROM expected e JOIN realgen.row r ON r.rel = e.rel AND r.rowno = e.rowno JOIN realgen.tbl tb ON tb.rel = e.rel
	CROSS JOIN LATERAL (
		SELECT format('%s %s.%s -> %s', k.kind, tb.name, array_to_string(ed.cols, ','), coalesce(pt.name, '?'))
		FROM realgen.link k JOIN expected pe ON pe.rel = k.parent AND pe.rowno = k.parent_rowno
		JOIN realgen.edge ed ON ed.id = k.edge LEFT JOIN realgen.tbl pt ON pt.rel = k.parent
		WHERE k.child = r.rel AND k.child_rowno = r.rowno
		UNION ALL
		SELECT format('%s %s.%s -> %s (a delegated type: up)', k.kind, ct.name, array_to_string(ed.cols, ','), tb.name)
		FROM realgen.link k JOIN expected ce ON ce.rel = k.child AND ce.rowno = k.child_rowno
		JOIN realgen.edge ed ON ed.id = k.edge AND ed.delegated JOIN realgen.tbl ct ON ct.rel = k.child
		WHERE k.parent = r.rel AND k.parent_rowno = r.rowno) v(v)
	WHERE NOT EXISTS (SELECT 1 FROM loaded l WHERE l.rel = r.rel AND l.key = r.key)
	GROUP BY tb.name;
	RETURN QUERY
	SELECT 'refused', tb.name, count(*), string_agg(DISTINCT r.key, ' ' ORDER BY r.key)
	FROM reachable e JOIN realgen.row r ON r.rel = e.rel AND r.rowno = e.rowno JOIN realgen.tbl tb ON tb.rel = e.rel
	WHERE decided ->> tb.name = 'ignore'
	GROUP BY tb.name;
	RETURN QUERY
	SELECT 'refused-via', tb.name, count(*), string_agg(DISTINCT v.v, '; ')
	FROM reachable e JOIN realgen.row r ON r.rel = e.rel AND r.rowno = e.rowno JOIN realgen.tbl tb ON tb.rel = e.rel
	CROSS JOIN LATERAL (
		SELECT format('%s %s.%s -> %s', k.kind, tb.name, array_to_string(ed.cols, ','), coalesce(pt.name, '?'))
		FROM realgen.link k JOIN reachable pe ON pe.rel = k.parent AND pe.rowno = k.parent_rowno
		JOIN realgen.edge ed ON ed.id = k.edge LEFT JOIN realgen.tbl pt ON pt.rel = k.parent
		WHERE k.child = r.rel AND k.child_rowno = r.rowno
		UNION ALL
		SELECT format('%s %s.%s -> %s (a delegated type: up)', k.kind, ct.name, array_to_string(ed.cols, ','), tb.name)
		FROM realgen.link k JOIN reachable ce ON ce.rel = k.child AND ce.rowno = k.child_rowno
		JOIN realgen.edge ed ON ed.id = k.edge AND ed.delegated JOIN realgen.tbl ct ON ct.rel = k.child
		WHERE k.parent = r.rel AND k.parent_rowno = r.rowno) v(v)
	WHERE decided ->> tb.name = 'ignore'
	GROUP BY tb.name;
	RETURN QUERY
	SELECT 'missing-parent', tb.name, count(*), string_agg(DISTINCT r.key, ' ' ORDER BY r.key)
	FROM up u JOIN realgen.row r ON r.rel = u.rel AND r.rowno = u.rowno JOIN realgen.tbl tb ON tb.rel = u.rel
	WHERE NOT EXISTS (SELECT 1 FROM loaded l WHERE l.rel = r.rel AND l.key = r.key)
	GROUP BY tb.name;
	RETURN QUERY
	SELECT 'missing-parent-via', tb.name, count(*), string_agg(DISTINCT format('%s %s.%s -> %s', k.kind, ct.name,
														array_to_string(ed.cols, ','), tb.name), '; ')
	FROM up u JOIN realgen.row r ON r.rel = u.rel AND r.rowno = u.rowno JOIN realgen.tbl tb ON tb.rel = u.rel
	JOIN realgen.link k ON k.parent = r.rel AND k.parent_rowno = r.rowno
	JOIN realgen.edge ed ON ed.id = k.edge JOIN realgen.tbl ct ON ct.rel = k.child
	WHERE NOT EXISTS (SELECT 1 FROM loaded l WHERE l.rel = r.rel AND l.key = r.key)
	  AND (EXISTS (SELECT 1 FROM expected e WHERE e.rel = k.child AND e.rowno = k.child_rowno)
		   OR EXISTS (SELECT 1 FROM up u2 WHERE u2.rel = k.child AND u2.rowno = k.child_rowno))
	GROUP BY tb.name;
	DROP TABLE loaded;
	DROP TABLE reachable;
	DROP TABLE expected;
	DROP TABLE up;
	DROP TABLE needed;
END $$;

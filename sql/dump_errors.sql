--
-- dump_errors: bad input gets a clear error, and nothing is left behind
--
CREATE TABLE victims (id int PRIMARY KEY, v text);
INSERT INTO victims VALUES (1, 'keep me');
CREATE SEQUENCE dump_errors_seq;

-- NULL arguments are errors, not an empty result.
SELECT exwiw_dump(NULL, 't');
SELECT exwiw_dump('SELECT 1 AS id', NULL);
SELECT exwiw_dump('SELECT 1 AS id', 't', format => NULL);
SELECT exwiw_dump('SELECT 1 AS id', 't', chunk_bytes => NULL);
-- ... but a NULL rows_per_statement is the documented default.
SELECT exwiw_dump('SELECT 1 AS id', 't', NULL);

-- Out-of-range options.
SELECT exwiw_dump('SELECT 1 AS id', 't', 0);
SELECT exwiw_dump('SELECT 1 AS id', 't', -5);
SELECT exwiw_dump('SELECT 1 AS id', 't', 10, format => 'copy');
SELECT exwiw_dump('SELECT 1 AS id', 't', format => 'csv');
SELECT exwiw_dump('SELECT 1 AS id', 't', chunk_bytes => 0);
SELECT exwiw_dump('SELECT 1 AS id', 't', chunk_bytes => 300000000);

-- Only a single read-only SELECT is accepted.
SELECT exwiw_dump('INSERT INTO victims VALUES (2, ''x'')', 't');
SELECT exwiw_dump('UPDATE victims SET v = ''gone'' RETURNING *', 't');
SELECT exwiw_dump('DELETE FROM victims RETURNING id', 't');
SELECT exwiw_dump('WITH d AS (DELETE FROM victims RETURNING *) SELECT * FROM d', 't');
SELECT exwiw_dump('SELECT 1 AS id; SELECT 2 AS id', 't');
SELECT exwiw_dump('SELECT 1 AS id; DELETE FROM victims', 't');
SELECT exwiw_dump('MERGE INTO victims v USING (SELECT 1 AS id) s ON v.id = s.id WHEN MATCHED THEN DELETE', 't');
SELECT exwiw_dump('TRUNCATE victims', 't');
SELECT exwiw_dump('CREATE TABLE x (a int)', 't');
SELECT exwiw_dump('EXPLAIN SELECT 1', 't');
SELECT exwiw_dump('SELECT * INTO new_table FROM victims', 't');
SELECT exwiw_dump('SELECT * FROM victims FOR UPDATE', 't');
SELECT exwiw_dump('SELECT * FROM (SELECT id FROM victims FOR UPDATE) s', 't');
SELECT exwiw_dump('SELECT id FROM victims WHERE id IN (SELECT id FROM victims FOR SHARE)', 't');
SELECT exwiw_dump('WITH x AS (SELECT id FROM victims FOR UPDATE) SELECT * FROM x', 't');
SELECT exwiw_dump('', 't');
SELECT exwiw_dump('SELEC 1', 't');
-- A volatile function that writes is stopped by the read-only window
-- (as in a READ ONLY transaction, temporary tables stay writable).
SELECT exwiw_dump('SELECT nextval(''dump_errors_seq'') AS id', 't');
CREATE FUNCTION sneaky_delete() RETURNS int LANGUAGE plpgsql AS
  $$ BEGIN DELETE FROM victims; RETURN 1; END $$;
SELECT exwiw_dump('SELECT sneaky_delete() AS id', 't');
-- Nothing was changed.
SELECT * FROM victims;
SELECT last_value, is_called FROM dump_errors_seq;
SELECT to_regclass('new_table') AS not_created;

-- Result columns must have distinct, real names.
SELECT exwiw_dump('SELECT 1, 2 AS b', 't');
SELECT exwiw_dump('SELECT 1 AS a, 2 AS a', 't');
SELECT exwiw_dump('SELECT v.id, w.id FROM victims v, victims w', 't');
SELECT exwiw_dump('SELECT FROM victims', 't');
-- Names made by PostgreSQL from a function or column are real names.
SELECT exwiw_dump('SELECT upper(v), id FROM victims', 't');

-- Errors inside the query surface as they are; the context names the
-- function, and a syntax error points into the query.
SELECT exwiw_dump('SELECT 1 / 0 AS id', 't');
SELECT exwiw_dump('SELECT * FROM no_such_table', 't');

-- statement_timeout cancels a long dump, and the session is fine after.
SET statement_timeout = '200ms';
SELECT count(*) FROM exwiw_dump('SELECT g AS id, pg_sleep(0.01) AS s FROM generate_series(1, 1000) g', 't', chunk_bytes => 1);
RESET statement_timeout;
SELECT count(*) AS open_cursors FROM pg_cursors;

-- An error in the consumer of the chunks releases the cursor too.
SELECT 1 / (length(c) - length(c)) FROM exwiw_dump('SELECT g AS id FROM generate_series(1, 10) g', 't') c;
SELECT count(*) AS open_cursors FROM pg_cursors;

-- Row-level security applies: the query runs with the caller's rights.
CREATE TABLE rls_docs (id int, owner name, body text);
INSERT INTO rls_docs VALUES (1, 'exwiw_alice', 'alice''s'), (2, 'exwiw_bob', 'bob''s');
ALTER TABLE rls_docs ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON rls_docs USING (owner = current_user);
CREATE ROLE exwiw_alice;
CREATE ROLE exwiw_mallory;
GRANT SELECT ON rls_docs TO exwiw_alice;
SET ROLE exwiw_alice;
SELECT exwiw_dump('SELECT * FROM rls_docs ORDER BY id', 'rls_docs');
RESET ROLE;
SET ROLE exwiw_mallory;
SELECT exwiw_dump('SELECT * FROM rls_docs', 'rls_docs');
RESET ROLE;
DROP TABLE rls_docs;
DROP ROLE exwiw_alice;
DROP ROLE exwiw_mallory;
DROP TABLE victims;

-- A call of the subset export's functions that Citus pushed down to a
-- worker (its connections there are named "citus_internal ...") is
-- refused: there they would read the shards.  A dump of a given query is
-- Citus's to allow or refuse.
SET application_name = 'citus_internal gpid=10000000001';
SELECT count(*) FROM exwiw_dump('SELECT 1 AS a', 't');
SELECT * FROM exwiw_export('t', '{1}', '[{"name": "pg_class", "primary_key": "oid"}]');
SELECT * FROM exwiw_plan('t', '{1}', '[{"name": "pg_class", "primary_key": "oid"}]');
SELECT exwiw_config_from_catalog();
SELECT exwiw_ext_json('{"a": 1}'::jsonb);
RESET application_name;

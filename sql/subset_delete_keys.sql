-- Delete files of a table with a key of several columns: at most 1,000 keys
-- to a statement whatever bulk_insert_chunk_size (10,000 by default), since
-- "(a, b) IN ((...), ...)" with 12,000 rows exceeds the default
-- max_stack_depth; the statements run, and delete the tenant's rows.
CREATE SCHEMA dk;
CREATE TABLE dk.tenants (id bigint PRIMARY KEY);
CREATE TABLE dk.tags (tenant_id bigint NOT NULL REFERENCES dk.tenants,
                      tag text NOT NULL, PRIMARY KEY (tenant_id, tag));
INSERT INTO dk.tenants VALUES (1), (2);
INSERT INTO dk.tags SELECT t, 'tag ' || g FROM generate_series(1, 12000) g, generate_series(1, 2) t;
SET search_path = dk, public;
CREATE TEMP TABLE dk_files AS
SELECT file_name, string_agg(chunk, E'\n' ORDER BY n) || E'\n' AS body
FROM exwiw_export('tenants', '{1}', allow_undecided => true, deletes => true) WITH ORDINALITY AS e(file_name, chunk, n)
GROUP BY file_name;
-- 12 statements of at most 1,000 keys (and the chain's statement)
SELECT file_name,
       (SELECT count(*) FROM regexp_matches(body, '^DELETE FROM', 'gn')) AS statements,
       (SELECT max((length(st) - length(replace(st, '), (', ''))) / 4 + 1)
          FROM regexp_split_to_table(body, E';\n') AS st
          WHERE st ~ 'IN \(\(') AS most_keys
FROM dk_files WHERE file_name LIKE 'delete-%tags.sql';
-- they run (every statement of the file), and leave tenant 2's rows alone
DO $$
DECLARE
	st text;
BEGIN
	FOR st IN SELECT s FROM dk_files, regexp_split_to_table(body, E';\n') AS s
		WHERE file_name LIKE 'delete-%tags.sql' AND s ~ '^DELETE'
	LOOP
		EXECUTE st;
	END LOOP;
END $$;
SELECT tenant_id, count(*) FROM dk.tags GROUP BY 1 ORDER BY 1;
RESET search_path;
DROP SCHEMA dk CASCADE;

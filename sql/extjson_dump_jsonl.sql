-- Extended JSON: exwiw_dump_jsonl streams one document per row
CREATE TABLE extjson_fdw_like (_id name, title text, meta json, created timestamp, price numeric);
INSERT INTO extjson_fdw_like
SELECT lpad(to_hex(g), 24, '0'), 'doc ' || g,
       json_build_object('tags', json_build_array('a', g), 'seen', json_build_object('$date', 1418368330000 + g)),
       '2020-01-01'::timestamp + g * interval '1 hour', g / 4.0
FROM generate_series(1, 5) g;
SELECT exwiw_dump_jsonl('SELECT * FROM extjson_fdw_like ORDER BY _id');
-- chunking: small chunks end between lines, joining them gives the same text
SELECT count(*) AS chunks,
       string_agg(c, E'\n') = (SELECT string_agg(exwiw_ext_json(t), E'\n' ORDER BY _id) FROM extjson_fdw_like t) AS same
FROM (SELECT exwiw_dump_jsonl('SELECT * FROM extjson_fdw_like ORDER BY _id', chunk_bytes => 100) AS c) s;
-- options
SELECT exwiw_dump_jsonl('SELECT title AS _id, NULL::int AS gone, 1 AS kept FROM extjson_fdw_like WHERE title = ''doc 1''',
                        omit_nulls => true);
SELECT exwiw_dump_jsonl($$SELECT '5f2a1b3c4d5e6f7a8b9c0d1e'::text AS ref$$, oid_columns => '{ref}');
-- no rows: no output
SELECT count(*) FROM exwiw_dump_jsonl('SELECT 1 AS one WHERE false');
-- early stop closes the cursor
SELECT exwiw_dump_jsonl('SELECT g FROM generate_series(1, 100000) g', chunk_bytes => 10) LIMIT 2;
-- the stream engine's rules apply
SELECT exwiw_dump_jsonl('DELETE FROM extjson_fdw_like RETURNING *');
SELECT exwiw_dump_jsonl('SELECT 1, 2');
SELECT exwiw_dump_jsonl(NULL);
SELECT exwiw_dump_jsonl('SELECT 1 AS a', chunk_bytes => 0);

-- A chunk holds at least one whole row and is one text value (1 GB at
-- most): a row whose document cannot fit (520 MB of '"', each escaped as
-- \") is refused with a clear error naming the row.
SELECT length(c) FROM exwiw_dump_jsonl($$SELECT 1 AS id, repeat(repeat('"', 1024 * 1024), 520) AS v$$) c;

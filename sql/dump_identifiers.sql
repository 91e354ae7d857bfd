--
-- dump_identifiers: table and column names are quoted by the spec's rule
--
-- Bare only when ^[a-z_][a-z0-9_$]*$ and not a reserved word; otherwise in
-- double quotes with " doubled.  The table name is split on ".".
--
SELECT c AS header FROM exwiw_dump(
  'SELECT 1 AS id, 2 AS "UserName", 3 AS "order", 4 AS "two words", 5 AS "say ""hi""",
          6 AS _x$1, 7 AS "1st", 8 AS "é", 9 AS "ORDER", 10 AS "Select", 11 AS name, 12 AS type',
  'billing.order', chunk_bytes => 1) c;

SELECT c AS header FROM exwiw_dump('SELECT 1 AS id', 'Billing.Orders', chunk_bytes => 1) c;
SELECT c AS header FROM exwiw_dump('SELECT 1 AS id', 'a"b.c d', chunk_bytes => 1) c;
SELECT c AS header FROM exwiw_dump('SELECT 1 AS id', 'select', format => 'copy', chunk_bytes => 1) c;

-- Empty parts are refused.
SELECT exwiw_dump('SELECT 1 AS id', 'billing..order');
SELECT exwiw_dump('SELECT 1 AS id', '');
SELECT exwiw_dump('SELECT 1 AS id', 'orders.');

-- The spec's word list is exactly the keywords that cannot stand bare as a
-- column name: PostgreSQL's reserved (R) and type/function-name (T)
-- keywords, plus system_user (reserved from PostgreSQL 16 on).  Every one
-- of them is quoted; unreserved and column-name keywords stay bare.  (How
-- many keywords each category has depends on the server's version: the
-- query names the ones that break the rule.)
SELECT k.catcode, count(*) >= 20 AS at_least_20,
       string_agg(k.word, ' ' ORDER BY k.word)
         FILTER (WHERE (h.header LIKE '%"' || k.word || '"%') <> (k.catcode IN ('R', 'T')))
         AS misquoted
FROM pg_get_keywords() k,
     LATERAL (SELECT c AS header
              FROM exwiw_dump(format('SELECT 1 AS %I', k.word), 't', chunk_bytes => 1) c) h
GROUP BY k.catcode ORDER BY k.catcode;
SELECT c AS header FROM exwiw_dump('SELECT 1 AS system_user_col, 2 AS "system_user"', 't', chunk_bytes => 1) c;

-- Round trip through tables whose names need every kind of quoting.
CREATE SCHEMA "Weird Schema";
CREATE TABLE "Weird Schema"."Order ""Items""" ("Id" int, "from" text, "two words" text, plain text);
INSERT INTO "Weird Schema"."Order ""Items""" VALUES (1, 'a', 'b', 'c'), (2, NULL, 'it''s', E'x\ny');
CREATE TABLE "Weird Schema"."Order ""Items"" copy" (LIKE "Weird Schema"."Order ""Items""");
DO $$
BEGIN
  EXECUTE (SELECT string_agg(c, E'\n')
           FROM exwiw_dump('SELECT * FROM "Weird Schema"."Order ""Items"""',
                           'Weird Schema.Order "Items" copy') c);
END $$;
SELECT * FROM "Weird Schema"."Order ""Items""" EXCEPT SELECT * FROM "Weird Schema"."Order ""Items"" copy";
SELECT * FROM "Weird Schema"."Order ""Items"" copy" EXCEPT SELECT * FROM "Weird Schema"."Order ""Items""";
SELECT count(*) AS restored FROM "Weird Schema"."Order ""Items"" copy";
DROP SCHEMA "Weird Schema" CASCADE;

-- Relations offered from evidence, never applied silently (issue 36,
-- item 6): exwiw_config_from_catalog tests the key-like columns that no
-- foreign key or name covers against the tables' keys and writes each
-- relation the data supports with "proposed": true and its evidence; the
-- export refuses it until a person accepts or rejects it.
CREATE SCHEMA prop;
SET search_path = prop, public;
CREATE TABLE accounts (id bigint PRIMARY KEY, name text);
CREATE TABLE users (id bigint PRIMARY KEY, account_id bigint NOT NULL REFERENCES accounts, name text);
CREATE TABLE user_settings (id bigint PRIMARY KEY, user_id bigint NOT NULL, theme text);
CREATE TABLE categories (id bigint PRIMARY KEY, account_id bigint NOT NULL REFERENCES accounts,
                         parent_category_id bigint, name text);
CREATE TABLE tickets (id bigint PRIMARY KEY, account_id bigint NOT NULL REFERENCES accounts,
                      assignee_id bigint,         -- users, by the data
                      closed_by bigint,           -- users, by the data
                      reviewer_id bigint,         -- two values: no evidence
                      position integer,           -- indexed, three values
                      external_id text,           -- no table has text keys
                      subject text);
CREATE INDEX ON tickets (position);
CREATE INDEX ON tickets (account_id);
CREATE INDEX ON users (account_id);
CREATE INDEX ON user_settings (user_id);
CREATE INDEX ON categories (account_id);
INSERT INTO accounts VALUES (1, 'one'), (2, 'two');
INSERT INTO users SELECT g, 1 + g % 2, 'user ' || g FROM generate_series(1, 40) g;
INSERT INTO user_settings SELECT g, g, 'dark' FROM generate_series(1, 40) g;
INSERT INTO categories VALUES (1, 1, NULL, 'root 1'), (2, 2, NULL, 'root 2'), (3, 1, 1, 'a'),
                              (4, 2, 2, 'b'), (5, 1, 3, 'c'), (6, 2, 4, 'd');
-- every reference inside its account; positions 1 to 3 of each account
INSERT INTO tickets
SELECT g, 1 + g % 2,
       CASE WHEN g % 5 <> 0 THEN 2 + 2 * ((g * 7) % 20) - g % 2 END,
       2 + 2 * ((g * 3) % 20) - g % 2,
       CASE WHEN g % 2 = 0 THEN 2 ELSE 1 END,
       1 + g % 3, 'ext-' || g, 'ticket ' || g
  FROM generate_series(1, 1000) g;
-- a dropped column is passed over
ALTER TABLE tickets ADD COLUMN gone_id bigint;
ALTER TABLE tickets DROP COLUMN gone_id;
ANALYZE accounts, users, user_settings, categories, tickets;

-- the proposals and their evidence: users (not user_settings, of the same
-- size: more tables reference users), categories for its own
-- parent_category_id (named by the column); not reviewer_id (two distinct
-- values), position (indexed, but named as no key: fewer than ten distinct
-- values are no evidence), external_id (no table has text keys)
CREATE TEMP TABLE cfg AS SELECT exwiw_config_from_catalog('prop') AS c;
SELECT t->>'name' AS "table", b->>'foreign_key' AS foreign_key, b->>'table_name' AS table_name,
       b->'proposed' AS proposed, b->>'evidence' AS evidence
  FROM cfg, jsonb_array_elements(c->'tables') t, jsonb_array_elements(t->'belongs_tos') b
 WHERE b ? 'proposed' ORDER BY 1, 2;
-- pg_stat_statements is not installed here: the config says so
SELECT c->>'comment' AS comment FROM cfg;
-- installed but not loaded (no shared_preload_libraries here): its view
-- errors, the config says why, and the rest is generated as before
SET client_min_messages = warning;
DO $$ BEGIN
  IF EXISTS (SELECT FROM pg_available_extensions WHERE name = 'pg_stat_statements') THEN
    CREATE EXTENSION pg_stat_statements;
  END IF;
END $$;
RESET client_min_messages;
SELECT exwiw_config_from_catalog('prop')->>'comment'
         ~ '^pg_stat_statements (could not be read \(.*shared_preload_libraries.*\)|is not installed)' AS says_why,
       jsonb_array_length(exwiw_config_from_catalog('prop')->'tables') AS tables;
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS pg_stat_statements;
RESET client_min_messages;

-- a helper: the config with the proposal for column col decided (change
-- merged into it, "proposed" removed)
CREATE FUNCTION pg_temp.decide(cfg jsonb, col text, change jsonb) RETURNS jsonb
LANGUAGE sql AS $$
  SELECT jsonb_set(cfg, ARRAY['tables', (t.n - 1)::text, 'belongs_tos', (b.o - 1)::text],
                   (b.v - 'proposed') || change)
    FROM jsonb_array_elements(cfg->'tables') WITH ORDINALITY AS t(v, n),
         jsonb_array_elements(t.v->'belongs_tos') WITH ORDINALITY AS b(v, o)
   WHERE b.v->>'foreign_key' = col AND b.v ? 'proposed'
$$;

-- the export refuses the proposals, naming them, in one round
\set VERBOSITY default
SELECT count(*) FROM exwiw_export('accounts', '{1}', (SELECT c FROM cfg));
-- allow_undecided does not apply them (a WARNING names them)
SELECT count(*) > 0 AS exported
  FROM exwiw_export('accounts', '{1}', (SELECT c FROM cfg), allow_undecided => true);
-- a marker that is not a boolean is refused
SELECT count(*) FROM exwiw_export('accounts', '{1}',
  pg_temp.decide((SELECT c FROM cfg), 'closed_by', '{"proposed": "yes"}'));
-- accepted (the evidence may stay), rejected: the export runs; the
-- accepted relations apply (account 1's users through its tickets only)
UPDATE cfg SET c = pg_temp.decide(c, 'assignee_id', '{}');
UPDATE cfg SET c = pg_temp.decide(c, 'parent_category_id', '{}');
UPDATE cfg SET c = pg_temp.decide(c, 'closed_by', '{"ignore": true}');
SELECT e.file_name, sum((SELECT count(*) FROM regexp_matches(e.chunk, '^\(''\d+''', 'gn'))) AS rows
  FROM exwiw_export('accounts', '{1}', (SELECT c FROM cfg)) e
 WHERE e.file_name LIKE 'insert-%' GROUP BY 1 ORDER BY 1;

-- a role that may not read tickets gets no proposal for its columns (and
-- the tables it may read are tested as usual)
CREATE ROLE exwiw_prop_reader;
GRANT USAGE ON SCHEMA prop TO exwiw_prop_reader;
GRANT SELECT ON accounts, users, user_settings, categories TO exwiw_prop_reader;
SET ROLE exwiw_prop_reader;
SELECT t->>'name' AS "table", b->>'foreign_key' AS foreign_key, b->>'table_name' AS table_name
  FROM jsonb_array_elements(exwiw_config_from_catalog('prop')->'tables') t,
       jsonb_array_elements(t->'belongs_tos') b
 WHERE b ? 'proposed' ORDER BY 1, 2;
RESET ROLE;

RESET search_path;
DROP SCHEMA prop CASCADE;
DROP OWNED BY exwiw_prop_reader;
DROP ROLE exwiw_prop_reader;

-- A table is offered as its own parent only when the column points back
-- into it: visitor_id (a key of another database, which only the table's
-- own serial ids hold, by chance) is no relation; previous_visit_id is
CREATE SCHEMA prop_self;
CREATE TABLE prop_self.visits (id bigint PRIMARY KEY, visitor_id bigint, previous_visit_id bigint);
INSERT INTO prop_self.visits
SELECT g, 1001 + g % 30, CASE WHEN g > 1001 THEN g - 1 END FROM generate_series(1001, 1100) g;
SELECT t->>'name' AS "table", b->>'foreign_key' AS foreign_key, b->>'table_name' AS table_name,
       b ? 'proposed' AS proposed
  FROM jsonb_array_elements(exwiw_config_from_catalog('prop_self')->'tables') t,
       jsonb_array_elements(t->'belongs_tos') b
 ORDER BY 1, 2;
DROP SCHEMA prop_self CASCADE;

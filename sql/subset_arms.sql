-- Polymorphic arms are followed from every table whose rows are exported,
-- whatever rule brought those rows (issue 36, item 2): users tied to an
-- account only through a join table still bring their "User" tokens, as
-- their plain-FK children do.
CREATE SCHEMA arms;
SET search_path = arms, public;
SET client_min_messages = warning;
CREATE TABLE accounts (id bigint PRIMARY KEY);
CREATE TABLE users (id bigint PRIMARY KEY, display text);
CREATE TABLE account_users (id bigint PRIMARY KEY,
                            account_id bigint NOT NULL REFERENCES accounts,
                            user_id bigint NOT NULL REFERENCES users);
CREATE TABLE agent_bots (id bigint PRIMARY KEY, account_id bigint REFERENCES accounts);
-- a polymorphic pair with an arm to a tied parent and one to users
CREATE TABLE access_tokens (id bigint PRIMARY KEY, owner_type text, owner_id bigint, token text);
-- a polymorphic pair whose only arm leads to users
CREATE TABLE avatars (id bigint PRIMARY KEY, owner_type text, owner_id bigint);
-- a plain child of users, for comparison
CREATE TABLE notification_settings (id bigint PRIMARY KEY, user_id bigint NOT NULL REFERENCES users);
CREATE INDEX ON account_users (account_id);
CREATE INDEX ON account_users (user_id);
CREATE INDEX ON agent_bots (account_id);
CREATE INDEX ON access_tokens (owner_id);
CREATE INDEX ON avatars (owner_id);
CREATE INDEX ON notification_settings (user_id);
INSERT INTO accounts VALUES (1), (2);
INSERT INTO users VALUES (1, 'u1'), (2, 'u2'), (3, 'u3');
INSERT INTO account_users VALUES (1, 1, 1), (2, 1, 2), (3, 2, 3);
INSERT INTO agent_bots VALUES (1, 1), (2, 2);
INSERT INTO access_tokens VALUES (1, 'User', 1, 't1'), (2, 'User', 2, 't2'), (3, 'User', 3, 't3'),
                                 (4, 'AgentBot', 1, 'b1'), (5, 'AgentBot', 2, 'b2');
INSERT INTO avatars VALUES (1, 'User', 1), (3, 'User', 3);
INSERT INTO notification_settings VALUES (1, 1), (2, 2), (3, 3);

CREATE TEMP TABLE cfg AS SELECT exwiw_config_from_catalog('arms') AS c;
SELECT seq, table_name, rule FROM exwiw_plan('accounts', '{1}', (SELECT c FROM cfg))
 WHERE seq IS NOT NULL ORDER BY seq;

-- the ids each file of an account holds, against the rows the account owns
CREATE FUNCTION pg_temp.ids(cfg jsonb, account bigint)
RETURNS TABLE (tbl text, ids text) LANGUAGE sql AS $$
  SELECT substring(file_name FROM '^insert-[0-9]+-(.*)\.sql$'),
         (SELECT string_agg(m[1], ',' ORDER BY m[1]::int)
            FROM regexp_matches(chunk, E'^\\(''([0-9]+)''', 'gn') AS m)
    FROM exwiw_export('accounts', ARRAY[account::text], cfg)
   WHERE file_name LIKE 'insert-%'
$$;
SELECT * FROM pg_temp.ids((SELECT c FROM cfg), 1) ORDER BY 1;
SELECT * FROM pg_temp.ids((SELECT c FROM cfg), 2) ORDER BY 1;
-- the tokens of account 1: its bots' and its users', none of account 2's
SELECT (SELECT ids FROM pg_temp.ids((SELECT c FROM cfg), 1) WHERE tbl = 'access_tokens') =
       (SELECT string_agg(id::text, ',' ORDER BY id) FROM access_tokens t
         WHERE (owner_type = 'AgentBot' AND owner_id IN (SELECT id FROM agent_bots WHERE account_id = 1))
            OR (owner_type = 'User' AND owner_id IN (SELECT user_id FROM account_users WHERE account_id = 1)))
       AS account_1_tokens_exact;

-- users whose rows may be another account's (a table exported in full
-- references them all): the arm is not followed, with a NOTICE, as a
-- plain child's cascade is not
CREATE TABLE audit_entries (id bigint PRIMARY KEY, user_id bigint REFERENCES users,
                            actor_id bigint REFERENCES users);
INSERT INTO audit_entries VALUES (1, 3, 3);
CREATE TEMP TABLE cfg2 AS SELECT exwiw_config_from_catalog('arms') AS c;
UPDATE cfg2 SET c = jsonb_set(c, '{tables}', (
  SELECT jsonb_agg(CASE WHEN t->>'name' = 'audit_entries'
                        THEN t - 'needs_scope_decision' || '{"export": "all"}' ELSE t END ORDER BY n)
    FROM jsonb_array_elements(c->'tables') WITH ORDINALITY AS y(t, n)));
SET client_min_messages = notice;
SELECT table_name, rule FROM exwiw_plan('accounts', '{1}', (SELECT c FROM cfg2))
 WHERE seq IS NOT NULL AND table_name IN ('access_tokens', 'avatars', 'notification_settings', 'users')
 ORDER BY seq;
SET client_min_messages = warning;

-- "delegated": true (Rails' delegated_type): the parent row is the child
-- row's own, so a transaction that only its entry ties to the family (no
-- category) comes with its children (its transfers); another family's
-- transactions and transfers do not
CREATE TABLE families (id int PRIMARY KEY);
CREATE TABLE categories (id int PRIMARY KEY, family_id int NOT NULL REFERENCES families);
CREATE TABLE transactions (id int PRIMARY KEY, category_id int REFERENCES categories);
CREATE TABLE fam_accounts (id int PRIMARY KEY, family_id int NOT NULL REFERENCES families);
CREATE TABLE entries (id int PRIMARY KEY, fam_account_id int NOT NULL REFERENCES fam_accounts,
                      entryable_type text, entryable_id int);
CREATE TABLE transfers (id int PRIMARY KEY, transaction_id int NOT NULL REFERENCES transactions);
INSERT INTO families VALUES (1), (2);
INSERT INTO categories VALUES (1, 1), (2, 2);
INSERT INTO transactions VALUES (10, 1), (11, NULL), (20, 2), (21, NULL);
INSERT INTO fam_accounts VALUES (100, 1), (200, 2);
INSERT INTO entries VALUES (1000, 100, 'Transaction', 10), (1001, 100, 'Transaction', 11),
                           (2000, 200, 'Transaction', 20), (2001, 200, 'Transaction', 21);
INSERT INTO transfers VALUES (5, 10), (6, 11), (7, 20), (8, 21);
CREATE TEMP TABLE cfg3 AS
  SELECT jsonb_build_object('tables', jsonb_agg(t)) AS c
    FROM jsonb_array_elements(exwiw_config_from_catalog('arms') -> 'tables') t
   WHERE t ->> 'name' IN ('families', 'categories', 'transactions', 'fam_accounts', 'entries', 'transfers');
-- without the decision: transfer 6 is missing (its transaction has no category)
SELECT file_name, string_agg(m[1], ',' ORDER BY m[1]::int) AS ids
  FROM exwiw_export('families', '{1}', (SELECT c FROM cfg3)),
       LATERAL regexp_matches(chunk, E'^\\(''([0-9]+)''', 'gn') AS m
 WHERE file_name ~ 'insert-.*(transactions|transfers)' GROUP BY 1 ORDER BY 1;
UPDATE cfg3 SET c = jsonb_set(c, '{tables}', (
  SELECT jsonb_agg(CASE WHEN t->>'name' <> 'entries' THEN t ELSE
           jsonb_set(t, '{belongs_tos}', (SELECT jsonb_agg(CASE WHEN b ? 'type_value' THEN b || '{"delegated": true}' ELSE b END)
                                           FROM jsonb_array_elements(t->'belongs_tos') b)) END)
    FROM jsonb_array_elements(c->'tables') t));
SELECT table_name, rule FROM exwiw_plan('families', '{1}', (SELECT c FROM cfg3))
 WHERE seq IS NOT NULL AND table_name IN ('transactions', 'transfers') ORDER BY seq;
SELECT f AS family, file_name, string_agg(m[1], ',' ORDER BY m[1]::int) AS ids
  FROM unnest('{1,2}'::int[]) f,
       LATERAL exwiw_export('families', ARRAY[f::text], (SELECT c FROM cfg3)),
       LATERAL regexp_matches(chunk, E'^\\(''([0-9]+)''', 'gn') AS m
 WHERE file_name ~ 'insert-.*(transactions|transfers)' GROUP BY 1, 2 ORDER BY 1, 2;
-- a note of family 1 names an entry of family 2: that entry comes as a
-- parent, and its transaction as the entry's, but the transaction is not
-- family 1's (only the family's own entries claim): its transfer 8 stays out
CREATE TABLE notes (id int PRIMARY KEY, family_id int NOT NULL REFERENCES families,
                    entry_id int NOT NULL REFERENCES entries);
INSERT INTO notes VALUES (1, 1, 2001);
UPDATE cfg3 SET c = jsonb_set(c, '{tables}', (c->'tables') || (
  SELECT jsonb_agg(t) FROM jsonb_array_elements(exwiw_config_from_catalog('arms') -> 'tables') t
   WHERE t ->> 'name' = 'notes'));
SELECT file_name, string_agg(m[1], ',' ORDER BY m[1]::int) AS ids
  FROM exwiw_export('families', '{1}', (SELECT c FROM cfg3)),
       LATERAL regexp_matches(chunk, E'^\\(''([0-9]+)''', 'gn') AS m
 WHERE file_name ~ 'insert-.*(entries|transactions|transfers)' GROUP BY 1 ORDER BY 1;
-- a delegated belongs_to to its own table, and a marker that is not a boolean
SELECT count(*) FROM exwiw_plan('families', '{1}', '[{"name": "families", "primary_key": "id"},
  {"name": "transactions", "primary_key": "id", "belongs_tos": [{"table_name": "transactions", "foreign_key": "category_id", "delegated": true}]}]');
SELECT count(*) FROM exwiw_plan('families', '{1}', '[{"name": "families", "primary_key": "id"},
  {"name": "categories", "primary_key": "id", "belongs_tos": [{"table_name": "families", "foreign_key": "family_id", "delegated": "yes"}]}]');

RESET search_path;
DROP SCHEMA arms CASCADE;

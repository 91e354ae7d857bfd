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

RESET search_path;
DROP SCHEMA arms CASCADE;

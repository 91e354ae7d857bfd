-- Every decision an export needs, asked in one round: polymorphic type
-- values that map to no table (issue 36, item 3), undecided columns and
-- undecided tables together in one refusal (item 5).
CREATE SCHEMA dec;
SET search_path = dec, public;
CREATE TABLE accounts (id bigint PRIMARY KEY, name text);
-- a Rails model with its own self.table_name: Channel::Api -> channel_api
CREATE TABLE channel_api (id bigint PRIMARY KEY, hmac_token text);
CREATE TABLE channel_emails (id bigint PRIMARY KEY, imap_login text);
CREATE TABLE inboxes (id bigint PRIMARY KEY,
                      account_id bigint NOT NULL REFERENCES accounts,
                      channel_type text, channel_id bigint);
CREATE INDEX ON inboxes (account_id);
INSERT INTO accounts VALUES (1, 'one'), (2, 'two');
INSERT INTO channel_api VALUES (1, 'secret-of-1'), (2, 'secret-of-2');
INSERT INTO channel_emails VALUES (1, 'login-1'), (2, 'login-2');
INSERT INTO inboxes VALUES (10, 1, 'Channel::Api', 1), (11, 1, 'Channel::Email', 1),
                           (20, 2, 'Channel::Api', 2), (21, 2, 'Channel::Email', 2),
                           (22, 2, 'Legacy::Gone', 7);

-- the generated config: the unmapped types are arms that wait for a table,
-- and channel_api waits for a scope decision (not "export": "all")
CREATE TEMP TABLE cfg AS SELECT exwiw_config_from_catalog('dec') AS c;
SELECT b->>'type_value' AS type_value, b->>'table_name' AS table_name,
       b->'needs_table_decision' AS needs_table_decision, b->>'comment' AS comment
  FROM cfg, jsonb_array_elements(c->'tables') t, jsonb_array_elements(t->'belongs_tos') b
 WHERE t->>'name' = 'inboxes' AND b ? 'type_value'
 ORDER BY 1;
SELECT t->>'name' AS name, t->>'export' AS export, t->'needs_scope_decision' AS needs_scope_decision,
       t->>'export_reason' AS export_reason
  FROM cfg, jsonb_array_elements(c->'tables') t
 WHERE t->>'name' IN ('channel_api', 'channel_emails') ORDER BY 1;

-- a helper: the config with one arm of inboxes changed
CREATE FUNCTION pg_temp.with_arm(cfg jsonb, type_value text, arm jsonb) RETURNS jsonb
LANGUAGE sql AS $$
  SELECT jsonb_set(cfg, '{tables}', (
    SELECT jsonb_agg(CASE WHEN t->>'name' <> 'inboxes' THEN t ELSE
             jsonb_set(t, '{belongs_tos}', (
               SELECT jsonb_agg(CASE WHEN b->>'type_value' = type_value
                                     THEN (b - 'needs_table_decision') || arm ELSE b END
                                ORDER BY o)
                 FROM jsonb_array_elements(t->'belongs_tos') WITH ORDINALITY AS x(b, o)))
           END ORDER BY n)
      FROM jsonb_array_elements(cfg->'tables') WITH ORDINALITY AS y(t, n)))
$$;

-- the export refuses, naming both the types and the table, in one message
\set VERBOSITY default
SELECT count(*) FROM exwiw_export('accounts', '{1}', (SELECT c FROM cfg));

-- mapped and ignored: every decision taken; account 1's channel only
UPDATE cfg SET c = pg_temp.with_arm(c, 'Channel::Api', '{"table_name": "channel_api"}');
UPDATE cfg SET c = pg_temp.with_arm(c, 'Legacy::Gone', '{"ignore": true}');
SELECT file_name, substring(chunk FROM 'INSERT INTO [^;]*') AS rows
  FROM exwiw_export('accounts', '{1}', (SELECT c FROM cfg))
 WHERE file_name LIKE 'insert-%channel%' ORDER BY 1;
SELECT file_name, substring(chunk FROM 'INSERT INTO [^;]*') AS rows
  FROM exwiw_export('accounts', '{2}', (SELECT c FROM cfg))
 WHERE file_name LIKE 'insert-%channel%' ORDER BY 1;

-- a table_name with the marker left in place counts as decided
UPDATE cfg SET c = pg_temp.with_arm(c, 'Channel::Api', '{"table_name": "channel_api", "needs_table_decision": true}');
SELECT count(*) FROM exwiw_export('accounts', '{1}', (SELECT c FROM cfg));
-- a marker that is not a boolean is refused
SELECT count(*) FROM exwiw_export('accounts', '{1}',
  pg_temp.with_arm((SELECT c FROM cfg), 'Legacy::Gone', '{"ignore": null, "needs_table_decision": "yes"}'));

-- one round: an undecided column, an undecided table and an unmapped type
-- are named together
CREATE TEMP TABLE cfg2 AS SELECT exwiw_config_from_catalog('dec') AS c;
UPDATE cfg2 SET c = jsonb_set(c, '{tables}', (
  SELECT jsonb_agg(CASE WHEN t->>'name' = 'channel_emails'
                        THEN jsonb_set(t, '{columns,1}', '{"name": "imap_login", "needs_mask_decision": true}')
                        ELSE t END ORDER BY n)
    FROM jsonb_array_elements(c->'tables') WITH ORDINALITY AS y(t, n)));
SELECT count(*) FROM exwiw_export('accounts', '{1}', (SELECT c FROM cfg2));
-- the same decisions, one kind at a time, keep their own messages
SELECT count(*) FROM exwiw_export('accounts', '{1}',
  pg_temp.with_arm(pg_temp.with_arm((SELECT c FROM cfg2), 'Channel::Api', '{"table_name": "channel_api"}'),
                   'Legacy::Gone', '{"ignore": true}'));
-- allow_undecided exports without them, saying which rows lose their parent
SELECT count(*) > 0 AS exported
  FROM exwiw_export('accounts', '{2}', (SELECT c FROM cfg2), allow_undecided => true);

-- exwiw_plan and exwiw_explain read an undecided config without refusing
SELECT count(*) > 0 AS planned FROM exwiw_plan('accounts', '{1}', (SELECT c FROM cfg2));

RESET search_path;
DROP SCHEMA dec CASCADE;

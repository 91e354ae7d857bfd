-- The delete file of a table whose key has a nondeterministic collation
-- (issue 37): its keys are written through replace(), which such a
-- collation refuses ("nondeterministic collations are not supported for
-- substring searches"); the key's text is searched in the C collation.
-- (A server built without ICU gets a deterministic collation of the same
-- name: the same output, the case is then not exercised.)
SET client_min_messages = warning;
CREATE SCHEMA ndcoll;
SET search_path = ndcoll, public;
DO $$
BEGIN
	CREATE COLLATION ndcoll.ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value OR undefined_object THEN
	CREATE COLLATION ndcoll.ci FROM "C";
END $$;
CREATE TABLE accounts (code text COLLATE ci PRIMARY KEY, name text);
CREATE TABLE members (id int PRIMARY KEY, account_code text COLLATE ci NOT NULL REFERENCES accounts, nick text);
INSERT INTO accounts VALUES ('O''Neil', 'one'), ('two', 'two');
INSERT INTO members VALUES (1, 'O''Neil', 'a'), (2, 'two', 'b');
SELECT file_name, chunk FROM exwiw_export('accounts', '{O''Neil}', exwiw_config_from_catalog(), deletes => true)
WHERE file_name ~ '^delete-' ORDER BY file_name;
RESET search_path;
DROP SCHEMA ndcoll CASCADE;
RESET client_min_messages;

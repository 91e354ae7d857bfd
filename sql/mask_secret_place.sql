-- exwiw.mask_secret is refused where every role can read it (issue 37):
-- a database's or a role's settings (pg_db_role_setting) and a function's
-- (pg_proc.proconfig).  No message quotes the value; the session's SET
-- works.  A value stored for a role before exwiw was loaded (a
-- placeholder then) is dropped with a WARNING when a session of that role
-- loads exwiw, and the masks refuse to run without a secret.
SET client_min_messages = warning;
DROP ROLE IF EXISTS regress_secret_role;
CREATE ROLE regress_secret_role LOGIN PASSWORD 'regress_secret_role_pw';
SELECT exwiw_mask_partial('loads the library');
ALTER DATABASE :"DBNAME" SET exwiw.mask_secret = 'db secret 0123456789abcdef';
ALTER ROLE CURRENT_USER SET exwiw.mask_secret = 'role secret 0123456789abcdef';
ALTER ROLE regress_secret_role IN DATABASE :"DBNAME" SET exwiw.mask_secret = 'role/db secret 0123456789abcdef';
CREATE FUNCTION regress_secret_fn() RETURNS int LANGUAGE sql
	SET exwiw.mask_secret = 'function secret 0123456789abcdef' AS 'SELECT 1';
-- nothing of it was stored where another role can read it
SET ROLE regress_secret_role;
SELECT count(*) AS stored FROM pg_db_role_setting WHERE pg_catalog.array_to_string(setconfig, ' ') ~ 'secret';
SELECT count(*) AS stored FROM pg_roles WHERE pg_catalog.array_to_string(rolconfig, ' ') ~ 'secret';
SELECT count(*) AS stored FROM pg_proc WHERE pg_catalog.array_to_string(proconfig, ' ') ~ 'secret';
RESET ROLE;
-- the session's own SET works
SET exwiw.mask_secret = 'session secret 0123456789abcdef';
SELECT length(exwiw_mask_pseudonym('x', 'name')) > 0 AS masked;
RESET exwiw.mask_secret;
-- stored for a role while exwiw was not loaded in the session (a
-- placeholder, which no hook checks): dropped, with a WARNING, when a
-- session of that role loads exwiw; the masks then have no secret
SELECT current_user AS regress_su \gset
\c
ALTER ROLE regress_secret_role SET exwiw.mask_secret = 'placeholder secret 0123456789abcdef';
-- (a password: an autopkgtest cluster authenticates by password)
\c -reuse-previous=on "user=regress_secret_role password=regress_secret_role_pw"
SET client_min_messages = error;
SELECT exwiw_mask_pseudonym('x', 'name');
\c - :regress_su
ALTER ROLE regress_secret_role RESET exwiw.mask_secret;
DROP ROLE regress_secret_role;

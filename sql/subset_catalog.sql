--
-- exwiw_config_from_catalog: a config for every table of a schema
--

\i test/subset/fixture.sql

-- one line per table: name, primary key, belongs_tos, columns, comment
SELECT t ->> 'name' AS name, t -> 'primary_key' AS pk,
	   (SELECT string_agg(b ->> 'foreign_key' || ' -> ' || (b ->> 'table_name'), ', ')
		FROM jsonb_array_elements(t -> 'belongs_tos') b) AS belongs_tos,
	   (SELECT string_agg(c ->> 'name', ', ') FROM jsonb_array_elements(t -> 'columns') c) AS columns,
	   t ->> 'comment' AS comment
FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') AS t;

-- the whole document for one table, as users edit it
SELECT jsonb_pretty(t)
FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') AS t
WHERE t ->> 'name' = 'orders';

-- the config it returns is valid as is, and is what a NULL config means
SET client_min_messages = warning;
SELECT count(*) AS tables FROM exwiw_plan('shops', '{1}', exwiw_config_from_catalog()) WHERE seq IS NOT NULL;
SELECT (SELECT array_agg(query ORDER BY seq) FROM exwiw_plan('shops', '{1}', exwiw_config_from_catalog()))
	 = (SELECT array_agg(query ORDER BY seq) FROM exwiw_plan('shops', '{1}')) AS same_plan;

-- Another schema: names are qualified.  A composite primary key is an
-- array; a foreign key on two columns is a belongs_to with two columns; one
-- to a unique key that is not the primary key names it in "references";
-- one to a table of another schema brings that table into the config (the
-- load needs its rows); a table without a primary key says so in its
-- comment; generated columns are left out.
CREATE SCHEMA "Other";
CREATE TABLE "Other".pairs (a int, b int, note text, PRIMARY KEY (a, b));
CREATE TABLE "Other".codes (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	code text UNIQUE,
	code_len int GENERATED ALWAYS AS (length(code)) STORED);
CREATE TABLE "Other".logs (
	a int, b int, code text REFERENCES "Other".codes (code),
	shop_id bigint REFERENCES shop.shops,
	FOREIGN KEY (a, b) REFERENCES "Other".pairs);
SELECT t ->> 'name' AS name, t -> 'primary_key' AS pk,
	   t -> 'belongs_tos' AS belongs_tos,
	   (SELECT string_agg(c ->> 'name', ', ') FROM jsonb_array_elements(t -> 'columns') c) AS columns
FROM jsonb_array_elements(exwiw_config_from_catalog('Other') -> 'tables') AS t;
SELECT t ->> 'name' AS name, regexp_split_to_table(t ->> 'comment', '; ') AS comment
FROM jsonb_array_elements(exwiw_config_from_catalog('Other') -> 'tables') AS t;
-- valid too; the queries use the qualified names
SELECT * FROM exwiw_plan('Other.codes', '{1}', exwiw_config_from_catalog('Other'));

-- Safe mode: columns that look like personal or secret data are marked
-- "needs_mask_decision": true, by name and by type; key columns never.  A
-- product's name is not a person's.
CREATE SCHEMA sens;
CREATE TABLE sens.customers (id int PRIMARY KEY, name text, first_name text, lastName text,
	email_address text, phone text, birth_date date, password_digest text, reset_password_token text,
	last_sign_in_ip inet, search tsvector, avatar bytea, prefs jsonb, zip text, note text, total int);
CREATE TABLE sens.products (id int PRIMARY KEY, name text, description text, customer_id int REFERENCES sens.customers);
-- An invoice's display name is not a person's; a json column is judged by
-- its name; the value of a table of keys is a secret.
CREATE TABLE sens.invoices (id int PRIMARY KEY, invoice_display_name text, display_name text,
	settings jsonb, secrets jsonb, tax_identification_number text, company_name text, city text,
	billing_address varchar(20), current_sign_in_ip inet, last_ip inet NOT NULL, login text UNIQUE);
CREATE TABLE sens.api_keys (id int PRIMARY KEY, value text, hmac_key text, name text);
SELECT t ->> 'name' AS name,
	   (SELECT string_agg(c ->> 'name', ', ') FROM jsonb_array_elements(t -> 'columns') c WHERE c ? 'needs_mask_decision') AS undecided,
	   (SELECT string_agg(c ->> 'name', ', ') FROM jsonb_array_elements(t -> 'columns') c WHERE NOT c ? 'needs_mask_decision') AS plain
FROM jsonb_array_elements(exwiw_config_from_catalog('sens') -> 'tables') AS t;
-- The default mask of each marked column (doc/subset.md, Safe mode): fake
-- data for names, phone numbers, cities and companies, seeded by the key
-- (not for a unique column, nor one too short for the pool); NULL for an IP
-- address that may be NULL; one known bcrypt digest of "password" for a
-- password digest, with a comment saying so; masked-{id} for other text;
-- none (undecided) for tsvector, bytea and columns a mask cannot fit.
SELECT t ->> 'name' AS name, c ->> 'name' AS col,
	   c - 'name' - 'needs_mask_decision' - 'comment' AS mask, c ->> 'comment' AS comment
FROM jsonb_array_elements(exwiw_config_from_catalog('sens') -> 'tables') AS t,
	 jsonb_array_elements(t -> 'columns') AS c
WHERE c ? 'needs_mask_decision';

-- Tables that belong to an extension are not listed.
CREATE SCHEMA ext;
CREATE TABLE ext.mine (id int PRIMARY KEY);
CREATE TABLE ext.members_table (id int PRIMARY KEY);
ALTER EXTENSION exwiw ADD TABLE ext.members_table;
SELECT t ->> 'name' FROM jsonb_array_elements(exwiw_config_from_catalog('ext') -> 'tables') AS t;
ALTER EXTENSION exwiw DROP TABLE ext.members_table;
SELECT t ->> 'name' FROM jsonb_array_elements(exwiw_config_from_catalog('ext') -> 'tables') AS t;

RESET client_min_messages;

-- errors
SELECT exwiw_config_from_catalog('no_such_schema');
SELECT exwiw_config_from_catalog(NULL);

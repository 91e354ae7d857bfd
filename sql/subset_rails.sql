--
-- The Ruby client's config keys on a Rails-shaped schema
-- (test/subset/rails.sql), with its schema directory written by hand in the
-- client's layout (test/subset/rails_schema/*.json, read in name order):
-- scope_column mode, polymorphic belongs_tos (comments on posts and photos,
-- ActiveStorage attachments on photos and users), a reverse_scope (tags),
-- the ActiveStorage blobs that only attachments reference, fake data, and
-- the tables Rails manages.
--
\i test/subset/rails.sql
\set cfg `printf '['; sep=''; for f in $(LC_ALL=C ls test/subset/rails_schema/*.json); do printf '%s' "$sep"; cat "$f"; sep=','; done; printf ']'`
SET client_min_messages = warning;

-- Which rule selects each table's rows.
SELECT seq, table_name, rule FROM exwiw_plan('accounts', '{1}', :'cfg') WHERE seq IS NOT NULL;

-- Account 1, every file.  Expected by hand:
--   accounts 1; users 1, 2 (account_id 1), email masked, full_name fake;
--   tags 1, 2 (used by account 1's post 1 and photo 1; not 3 or 4);
--   posts 1, 2; photos 1;
--   comments 1 (on post 1), 2 (on photo 1); not 5 (on post 3 of account 2);
--   active_storage_attachments 1 (photo 1), 3 (user 1); blobs 1, 3;
--   schema_migrations and ar_internal_metadata in full, every column,
--   INSERT without a column list; ar_internal_metadata's environment is
--   exwiw.rails_env, development (Rails refuses db:reset where it says
--   production).
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('accounts', '{1}', :'cfg');

-- The same without a target: every table that declares scope_column is
-- filtered by the ids; a scoped target is just one of them.
SELECT (SELECT string_agg(file_name || chunk, '' ORDER BY n) FROM exwiw_export(NULL, '{1}', :'cfg') WITH ORDINALITY AS e(file_name, chunk, n))
	 = (SELECT string_agg(file_name || chunk, '' ORDER BY n) FROM exwiw_export('accounts', '{1}', :'cfg') WITH ORDINALITY AS e(file_name, chunk, n))
	AS same_without_target;

-- Account 2: comment 5 is on its post 3 by a user of account 1, who comes
-- in as a referenced row.
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('accounts', '{2}', :'cfg') WHERE file_name ~ '(users|comments|tags)';

-- Fake data is deterministic: the same seed gives the same value, in any
-- table, on any run.
SELECT exwiw_fake('name', NULL, '1') = exwiw_fake('name', NULL, '1') AS deterministic,
	   exwiw_fake('name', NULL, '1'), exwiw_fake('email', NULL, '1'),
	   exwiw_fake('first_name', 'ja', '1'), exwiw_fake('first_name_kana', 'ja', '1'),
	   exwiw_fake('phone_number', NULL, 'x'), exwiw_fake('address', NULL, 'x'),
	   exwiw_fake('company', NULL, 'x'), exwiw_fake('name', NULL, NULL);

-- Single-target mode: the same schema without any scope_column walks the
-- belongs_tos from the target account instead, through both polymorphic
-- arms, and writes the same files.
\set cfg_walk `printf '['; sep=''; for f in $(LC_ALL=C ls test/subset/rails_schema/*.json); do printf '%s' "$sep"; grep -v '"scope_column"' "$f"; sep=','; done; printf ']'`
SELECT seq, table_name, rule FROM exwiw_plan('accounts', '{1}', :'cfg_walk') WHERE seq IS NOT NULL;
SELECT (SELECT string_agg(file_name || chunk, '' ORDER BY n) FROM exwiw_export('accounts', '{1}', :'cfg_walk') WITH ORDINALITY AS e(file_name, chunk, n))
	 = (SELECT string_agg(file_name || chunk, '' ORDER BY n) FROM exwiw_export('accounts', '{1}', :'cfg') WITH ORDINALITY AS e(file_name, chunk, n))
	AS walk_equals_scope;

-- A post as the target (single-target mode): comments through the arm Post,
-- and the arm Photo from the photos exported rows reference (none here);
-- tags through the one scoped arm of their reverse_scope; users and
-- accounts only as referenced rows.  Attachments follow their polymorphic
-- arms from the rows of users and photos that come in (a cascade of the
-- group, as a plain foreign key's children follow a referenced parent),
-- blobs as the rows they reference: nothing goes out in full (they were
-- UNDECIDED, every row, and brought every photo and its tag); an index on
-- (type, id) serves the polymorphic edge.
SELECT seq, table_name, rule FROM exwiw_plan('posts', '{1}', :'cfg_walk') WHERE seq IS NOT NULL;
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('posts', '{1}', :'cfg_walk', allow_undecided => true)
WHERE file_name ~ '(comments|photos|tags)';

-- Without its reverse_scope, tags still get exactly the rows exported rows
-- reference: the closure unions every referencing table.
SELECT (SELECT string_agg(file_name || chunk, '' ORDER BY n) FROM exwiw_export('accounts', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'tags' THEN t - 'reverse_scope' ELSE t END)
	FROM jsonb_array_elements(:'cfg'::jsonb) t)) WITH ORDINALITY AS e(file_name, chunk, n))
	 = (SELECT string_agg(file_name || chunk, '' ORDER BY n) FROM exwiw_export('accounts', '{1}', :'cfg') WITH ORDINALITY AS e(file_name, chunk, n))
	AS same_without_reverse_scope;

-- id spaces: tags scoped by an id space of their own (tag 4, which nothing
-- references), plus the tags account 1's rows reference.
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('accounts', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'tags'
					 THEN t - 'reverse_scope' || '{"scope_column": "id", "id_space": "tag"}' ELSE t END)
	FROM jsonb_array_elements(:'cfg'::jsonb) t), ids_by_space => '{"tag": ["4"]}')
WHERE file_name ~ 'tags';

-- Errors, each naming what to do.
SELECT * FROM exwiw_plan('accounts', '{1}', :'cfg', '{"org": ["1"]}');
-- ids_by_space: an object of id space to a list of strings or numbers
SELECT * FROM exwiw_plan('accounts', '{1}', :'cfg', '["org"]');
SELECT * FROM exwiw_plan('accounts', '{1}', :'cfg', '{"tag": "4"}');
SELECT * FROM exwiw_plan('accounts', '{1}', :'cfg', '{"tag": [true]}');
SELECT * FROM exwiw_plan('accounts', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'tags'
					 THEN t - 'reverse_scope' || '{"scope_column": "id", "id_space": "tag"}' ELSE t END)
	FROM jsonb_array_elements(:'cfg'::jsonb) t));
SELECT * FROM exwiw_plan('schema_migrations', '{1}', :'cfg');
SELECT * FROM exwiw_plan('accounts', '{1}', '[{"name": "accounts", "primary_key": "id",
	"columns": [{"name": "id"}, {"name": "name", "map": "->(r) { r[\"name\"].upcase }"}]}]');
SELECT * FROM exwiw_plan('accounts', '{1}', '[{"name": "accounts", "primary_key": "id",
	"columns": [{"name": "id"}, {"name": "name", "replace_with_fake_data": {"seed": "nope", "type": "name"}}]}]');
SELECT * FROM exwiw_plan('accounts', '{1}', '[{"name": "accounts", "primary_key": "id",
	"columns": [{"name": "id"}, {"name": "name", "replace_with_fake_data": {"seed": "id", "type": "planet"}}]}]');
SELECT * FROM exwiw_plan('accounts', '{1}', '[{"name": "accounts", "primary_key": "id",
	"columns": [{"name": "id"}, {"name": "name", "replace_with_fake_data": {"seed": "id", "type": "first_name_kana"}}]}]');
SELECT * FROM exwiw_plan('accounts', '{1}', '[{"name": "accounts", "primary_key": "id", "id_space": "Org"}]');
SELECT * FROM exwiw_plan('accounts', '{1}', '[{"name": "accounts", "primary_key": "id", "id_space": "org"}]');
SELECT * FROM exwiw_plan('accounts', '{1}', '[{"name": "accounts", "primary_key": "id"},
	{"name": "comments", "primary_key": "id", "belongs_tos": [{"foreign_key": "commentable_id", "foreign_type": "commentable_type", "table_name": "accounts"}]}]');
SELECT * FROM exwiw_plan('accounts', '{1}', '[{"name": "schema_migrations", "type": "rails_managed_schema_migrations", "primary_key": "version"}]');
-- exwiw.rails_env: another environment, or '' for the source's own
SET exwiw.rails_env = 'staging';
SELECT substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13, 90) FROM exwiw_export('accounts', '{1}', :'cfg')
WHERE file_name ~ 'ar_internal_metadata';
SET exwiw.rails_env = '';
SELECT substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13, 90) FROM exwiw_export('accounts', '{1}', :'cfg')
WHERE file_name ~ 'ar_internal_metadata';
RESET exwiw.rails_env;
RESET client_min_messages;
RESET search_path;

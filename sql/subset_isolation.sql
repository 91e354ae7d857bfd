--
-- Tenant isolation on the shapes real applications have (issue 18): every
-- arm ties rows to the target, relations left undeclared are inferred by
-- exwiw_config_from_catalog, tables that would go out in full need a
-- decision, cycles are cut at nullable keys and load in one pass, user
-- triggers stay quiet during a non-superuser load, target ids that match
-- nothing are an error.  The files are loaded as a non-superuser that owns
-- an empty copy of the schema, every constraint enforced, and compared
-- with the source tenant's rows with EXCEPT both ways.
--
SET client_min_messages = warning;
CREATE ROLE iso_loader;
CREATE SCHEMA iso;
CREATE SCHEMA iso_dst AUTHORIZATION iso_loader;

-- the schema, twice: the source, and the empty copy the loader owns
CREATE FUNCTION pg_temp.iso_schema() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	CREATE TABLE organizations (id bigint PRIMARY KEY, name text);
	-- 1. a tenant column without a foreign key (an event table)
	CREATE TABLE events (id bigint PRIMARY KEY, organization_id bigint NOT NULL, action text);
	-- 2. rows tied to the tenant by a second path
	CREATE TABLE projects (id bigint PRIMARY KEY, organization_id bigint NOT NULL REFERENCES organizations);
	CREATE TABLE labels (id bigint PRIMARY KEY, organization_id bigint REFERENCES organizations,
						 project_id bigint REFERENCES projects);
	-- 3. a cycle through a NOT NULL key, cut at the nullable ones
	CREATE TABLE namespaces (id bigint PRIMARY KEY, organization_id bigint REFERENCES organizations,
							 file_template_project_id bigint, push_rule_id bigint);
	ALTER TABLE projects ADD namespace_id bigint NOT NULL REFERENCES namespaces;
	CREATE TABLE push_rules (id bigint PRIMARY KEY, project_id bigint REFERENCES projects);
	ALTER TABLE namespaces ADD FOREIGN KEY (file_template_project_id) REFERENCES projects;
	ALTER TABLE namespaces ADD FOREIGN KEY (push_rule_id) REFERENCES push_rules;
	-- 4. a trigger that writes a keyed child row
	CREATE TABLE issues (id bigint PRIMARY KEY, organization_id bigint NOT NULL REFERENCES organizations);
	CREATE TABLE work_item_transitions (work_item_id bigint PRIMARY KEY REFERENCES issues ON DELETE CASCADE,
										state text);
	CREATE FUNCTION sync_transitions() RETURNS trigger LANGUAGE plpgsql AS
	  $f$ BEGIN INSERT INTO work_item_transitions VALUES (NEW.id, 'new') ON CONFLICT DO NOTHING; RETURN NULL; END $f$;
	CREATE TRIGGER trg AFTER INSERT ON issues FOR EACH ROW EXECUTE FUNCTION sync_transitions();
	-- polymorphic pair without a foreign key, inheritance child
	CREATE TABLE attachments (id bigint PRIMARY KEY, attachable_type text, attachable_id bigint);
	CREATE TABLE users (id bigint PRIMARY KEY, organization_id bigint REFERENCES organizations,
						home_org bigint REFERENCES organizations, title text);
	CREATE TABLE vip_users (level int) INHERITS (users);
	-- a lookup table: no tie, nothing like a key
	CREATE TABLE countries (code text PRIMARY KEY);
END $$;
SET search_path = iso, public;
SELECT pg_temp.iso_schema();
SET search_path = iso_dst;
SELECT pg_temp.iso_schema();
DO $$ DECLARE r record; BEGIN
	FOR r IN SELECT c.oid::regclass AS t FROM pg_class c WHERE c.relnamespace = 'iso_dst'::regnamespace AND c.relkind = 'r' LOOP
		EXECUTE format('ALTER TABLE %s OWNER TO iso_loader', r.t);
	END LOOP;
END $$;
ALTER FUNCTION iso_dst.sync_transitions() OWNER TO iso_loader;
SET search_path = iso, public;

-- three tenants, and rows that cross them
INSERT INTO organizations VALUES (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO events VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 3, 'c'), (4, 1, 'd');
INSERT INTO namespaces VALUES (10, 1, NULL, NULL), (11, 1, NULL, NULL), (20, 2, NULL, NULL), (30, 3, NULL, NULL);
INSERT INTO projects VALUES (100, 1, 10), (101, 1, 11), (200, 2, 20), (300, 3, 30);
INSERT INTO push_rules VALUES (5, 100), (6, 200);
UPDATE namespaces SET file_template_project_id = 101, push_rule_id = 5 WHERE id = 11;
-- tenant 2's namespace uses tenant 1's template: a reference across tenants
UPDATE namespaces SET file_template_project_id = 100 WHERE id = 20;
-- label 101 is tenant 1's through its project only; label 201 names
-- organization 2 although its project is tenant 1's: it is tenant 2's
INSERT INTO labels VALUES (100, 1, NULL), (101, NULL, 100), (200, NULL, 200), (201, 2, 101), (300, 3, NULL);
INSERT INTO issues VALUES (1000, 1), (2000, 2);
UPDATE work_item_transitions SET state = 'done' WHERE work_item_id = 1000;
INSERT INTO attachments VALUES (1, 'Project', 100), (2, 'Project', 200), (3, 'Label', 101),
	(4, 'Label', 300), (5, 'Organization', 1), (6, 'Organization', 2), (7, 'Namespace', 11);
INSERT INTO users VALUES (1, 1, NULL, 'u1'), (2, 2, NULL, 'u2'), (5, NULL, 1, 'u5'), (6, NULL, 2, 'u6');
INSERT INTO vip_users VALUES (3, 1, NULL, 'v3', 1), (4, 2, NULL, 'v4', 2), (7, NULL, 1, 'v7', 3), (8, NULL, 3, 'v8', 3);
INSERT INTO countries VALUES ('de'), ('jp');

-- The generated config: inferred edges, decisions on untied tables.
SELECT t ->> 'name' AS table_name, b ->> 'table_name' AS parent, b ->> 'foreign_key' AS fk,
	   b ->> 'foreign_type' AS type_col, b ->> 'type_value' AS type_value, b ->> 'inferred' AS inferred
FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t,
	 jsonb_array_elements(t -> 'belongs_tos') b
ORDER BY 1, 2, 3, 5;
SELECT t ->> 'name' AS table_name, t ->> 'export' AS export, t ->> 'needs_scope_decision' AS undecided
FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t
WHERE t ? 'export' OR t ? 'needs_scope_decision'
ORDER BY 1;

-- Every table's rule: every arm, the decided table, the cycle's fix-up.
SELECT seq, table_name, output, rule FROM exwiw_plan('organizations', '{1}')
WHERE seq IS NOT NULL ORDER BY seq;

-- Export tenant 1 and load it as the non-superuser owner of iso_dst.
CREATE TEMP TABLE files AS
SELECT row_number() OVER () AS n, file_name, chunk
FROM exwiw_export('organizations', '{1}');
GRANT SELECT ON files TO iso_loader;
SELECT file_name, count(*) AS chunks FROM files GROUP BY file_name ORDER BY file_name;
-- (tolerant: report a file's failure and go on, for the control below)
CREATE FUNCTION pg_temp.iso_load(tolerant boolean DEFAULT false) RETURNS void LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
	FOR r IN SELECT file_name, string_agg(chunk, E'\n' ORDER BY n) AS body
			 FROM pg_temp.files GROUP BY file_name ORDER BY file_name LOOP
		IF NOT tolerant THEN
			EXECUTE r.body;
			CONTINUE;
		END IF;
		BEGIN
			EXECUTE r.body;
		EXCEPTION WHEN OTHERS THEN
			RAISE WARNING '%: % (%)', r.file_name, SQLERRM, SQLSTATE;
		END;
	END LOOP;
END $$;
SET ROLE iso_loader;
SET search_path = iso_dst;
SET client_min_messages = notice;
SELECT pg_temp.iso_load();
SET client_min_messages = warning;
RESET ROLE;
SET search_path = iso, public;
-- the triggers are enabled again
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'iso_dst.issues'::regclass AND NOT tgisinternal;

-- Exactly tenant 1's rows, table by table (EXCEPT both ways).
CREATE FUNCTION pg_temp.iso_diff(tbl text, tenant_rows text) RETURNS TABLE(side text, r text)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format(
		'SELECT ''missing'', x::text FROM (%2$s EXCEPT SELECT * FROM ONLY iso_dst.%1$I) x
		 UNION ALL
		 SELECT ''extra'', x::text FROM (SELECT * FROM ONLY iso_dst.%1$I EXCEPT %2$s) x', tbl, tenant_rows);
END $$;
SELECT 'organizations' AS t, * FROM pg_temp.iso_diff('organizations', 'SELECT * FROM ONLY iso.organizations WHERE id = 1')
UNION ALL SELECT 'events', * FROM pg_temp.iso_diff('events', 'SELECT * FROM iso.events WHERE organization_id = 1')
UNION ALL SELECT 'projects', * FROM pg_temp.iso_diff('projects', 'SELECT * FROM iso.projects WHERE organization_id = 1')
UNION ALL SELECT 'labels', * FROM pg_temp.iso_diff('labels', 'SELECT * FROM iso.labels WHERE id IN (100, 101)')
UNION ALL SELECT 'namespaces', * FROM pg_temp.iso_diff('namespaces', 'SELECT * FROM iso.namespaces WHERE organization_id = 1')
UNION ALL SELECT 'push_rules', * FROM pg_temp.iso_diff('push_rules', 'SELECT * FROM iso.push_rules WHERE id = 5')
UNION ALL SELECT 'issues', * FROM pg_temp.iso_diff('issues', 'SELECT * FROM iso.issues WHERE organization_id = 1')
UNION ALL SELECT 'work_item_transitions', * FROM pg_temp.iso_diff('work_item_transitions', 'SELECT * FROM iso.work_item_transitions WHERE work_item_id = 1000')
UNION ALL SELECT 'attachments', * FROM pg_temp.iso_diff('attachments', 'SELECT * FROM iso.attachments WHERE id IN (1, 3, 5, 7)')
UNION ALL SELECT 'users', * FROM pg_temp.iso_diff('users', 'SELECT * FROM ONLY iso.users WHERE 1 IN (organization_id, home_org)')
UNION ALL SELECT 'vip_users', * FROM pg_temp.iso_diff('vip_users', 'SELECT * FROM iso.vip_users WHERE 1 IN (organization_id, home_org)')
UNION ALL SELECT 'countries', * FROM pg_temp.iso_diff('countries', 'SELECT * FROM iso.countries')
ORDER BY 1, 2, 3;

-- The same files loaded by a role that does not own the tables: the
-- trigger fires, and the file's block says so, naming it.
TRUNCATE iso_dst.organizations, iso_dst.events, iso_dst.projects, iso_dst.labels, iso_dst.namespaces,
	iso_dst.push_rules, iso_dst.issues, iso_dst.work_item_transitions, iso_dst.attachments,
	iso_dst.users, iso_dst.vip_users, iso_dst.countries;
CREATE ROLE iso_writer;
GRANT USAGE ON SCHEMA iso_dst TO iso_writer;
GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA iso_dst TO iso_writer;
GRANT SELECT ON files TO iso_writer;
SET ROLE iso_writer;
SET search_path = iso_dst;
SET client_min_messages = warning;
SELECT pg_temp.iso_load(tolerant => true);
RESET ROLE;
SET search_path = iso, public;

-- A table no rule ties to the target is refused until someone decides.
SELECT count(*) FROM exwiw_export('organizations', '{1}',
	'[{"name": "organizations", "primary_key": "id"},
	  {"name": "events", "primary_key": "id"},
	  {"name": "countries", "primary_key": "code"}]');
SELECT file_name FROM exwiw_export('organizations', '{1}',
	'[{"name": "organizations", "primary_key": "id"},
	  {"name": "events", "primary_key": "id", "belongs_tos": [{"table_name": "organizations", "foreign_key": "organization_id", "inferred": true}]},
	  {"name": "countries", "primary_key": "code", "export": "all"}]');
-- safe mode's marker: undecided until a decision is written
SELECT count(*) FROM exwiw_export('organizations', '{1}',
	'[{"name": "organizations", "primary_key": "id"},
	  {"name": "events", "primary_key": "id", "needs_scope_decision": true}]');
SELECT count(*) FROM exwiw_export('organizations', '{1}',
	'[{"name": "organizations", "primary_key": "id"},
	  {"name": "events", "primary_key": "id", "needs_scope_decision": true, "ignore": true}]');
SELECT count(*) FROM exwiw_export('organizations', '{1}',
	'[{"name": "organizations", "primary_key": "id"},
	  {"name": "events", "primary_key": "id"}]', allow_undecided => true);
SELECT * FROM exwiw_plan('organizations', '{1}',
	'[{"name": "organizations", "primary_key": "id"},
	  {"name": "events", "primary_key": "id", "export": "some"}]');

-- Target ids that match nothing: an error naming them, unless allowed.
SELECT count(*) FROM exwiw_export('organizations', '{1,999}');
SELECT count(*) FROM exwiw_export('organizations', '{1,999}', allow_missing_ids => true);

-- JSON Lines has no load order: a cycle's keys are written as they are.
SELECT file_name, chunk FROM exwiw_export('organizations', '{1}', format => 'jsonl')
WHERE file_name LIKE '%namespaces%' ORDER BY 1, 2;

-- A forward cascade takes the children of the rows of its parent, but
-- not when some of those rows come in only as the parents of rows that no
-- rule ties to the target (here every api client goes out, decided, with
-- its owner and creator): those owners' profiles would be other tenants'
-- rows, so the table needs a decision.  Without the table that goes out
-- whole, the cascade stands.
CREATE TABLE iso.owners (id int PRIMARY KEY);
CREATE TABLE iso.owner_profiles (owner_id int PRIMARY KEY REFERENCES iso.owners ON DELETE CASCADE, bio text);
CREATE TABLE iso.shops (id int PRIMARY KEY, owner_id int NOT NULL REFERENCES iso.owners);
CREATE TABLE iso.api_clients (id int PRIMARY KEY, owner_id int NOT NULL REFERENCES iso.owners,
							  created_by_id int NOT NULL REFERENCES iso.owners);
INSERT INTO iso.owners VALUES (1), (2), (3);
INSERT INTO iso.owner_profiles VALUES (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO iso.shops VALUES (10, 1), (20, 2);
INSERT INTO iso.api_clients VALUES (100, 3, 3);
SET client_min_messages = notice;
SELECT table_name, rule FROM exwiw_plan('shops', '{10}',
	'[{"name": "shops", "primary_key": "id", "belongs_tos": [{"table_name": "owners", "foreign_key": "owner_id"}]},
	  {"name": "owners", "primary_key": "id"},
	  {"name": "owner_profiles", "primary_key": "owner_id", "belongs_tos": [{"table_name": "owners", "foreign_key": "owner_id"}]},
	  {"name": "api_clients", "primary_key": "id", "export": "all", "belongs_tos": [{"table_name": "owners", "foreign_key": "owner_id"}, {"table_name": "owners", "foreign_key": "created_by_id"}]}]')
WHERE seq IS NOT NULL ORDER BY table_name;
SELECT count(*) FROM exwiw_export('shops', '{10}',
	'[{"name": "shops", "primary_key": "id", "belongs_tos": [{"table_name": "owners", "foreign_key": "owner_id"}]},
	  {"name": "owners", "primary_key": "id"},
	  {"name": "owner_profiles", "primary_key": "owner_id", "belongs_tos": [{"table_name": "owners", "foreign_key": "owner_id"}]},
	  {"name": "api_clients", "primary_key": "id", "export": "all", "belongs_tos": [{"table_name": "owners", "foreign_key": "owner_id"}, {"table_name": "owners", "foreign_key": "created_by_id"}]}]');
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('shops', '{10}',
	'[{"name": "shops", "primary_key": "id", "belongs_tos": [{"table_name": "owners", "foreign_key": "owner_id"}]},
	  {"name": "owners", "primary_key": "id"},
	  {"name": "owner_profiles", "primary_key": "owner_id", "belongs_tos": [{"table_name": "owners", "foreign_key": "owner_id"}]},
	  {"name": "api_clients", "primary_key": "id", "ignore": true}]')
WHERE file_name LIKE '%owner%' ORDER BY 1;
SET client_min_messages = warning;

-- A self-reference is a path too: a folder below one of the tenant's
-- folders is the tenant's (11, 12), and so are its documents, unless its
-- own key names another tenant (13, organization 2: that tenant's, and
-- so is 14 below it).  Folder 22 comes in as the parent that folder 12
-- references (moved_from_id), and 20 as its parent: ancestors, not with
-- their descendants 21 and 23.  (The target's own rows are the ids named.)
CREATE TABLE iso.folders (id int PRIMARY KEY, organization_id bigint REFERENCES iso.organizations,
						  parent_id int REFERENCES iso.folders, moved_from_id int REFERENCES iso.folders);
CREATE INDEX ON iso.folders (parent_id);
CREATE TABLE iso.documents (id int PRIMARY KEY, folder_id int NOT NULL REFERENCES iso.folders);
INSERT INTO iso.folders VALUES (10, 1, NULL, NULL), (11, NULL, 10, NULL), (20, 2, NULL, NULL),
	(21, NULL, 20, NULL), (22, NULL, 20, NULL), (12, NULL, 11, 22), (23, NULL, 22, NULL),
	(13, 2, 10, NULL), (14, NULL, 13, NULL);
INSERT INTO iso.documents VALUES (100, 10), (101, 11), (102, 12), (103, 13), (104, 14), (200, 20), (201, 21), (203, 23);
SELECT table_name, rule FROM exwiw_plan('organizations', '{1}',
	'[{"name": "organizations", "primary_key": "id"},
	  {"name": "folders", "primary_key": "id", "belongs_tos": [{"table_name": "organizations", "foreign_key": "organization_id"},
		{"table_name": "folders", "foreign_key": "parent_id"}, {"table_name": "folders", "foreign_key": "moved_from_id"}]},
	  {"name": "documents", "primary_key": "id", "belongs_tos": [{"table_name": "folders", "foreign_key": "folder_id"}]}]')
WHERE seq IS NOT NULL AND table_name IN ('folders', 'documents') ORDER BY table_name;
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('organizations', '{1}',
	'[{"name": "organizations", "primary_key": "id"},
	  {"name": "folders", "primary_key": "id", "belongs_tos": [{"table_name": "organizations", "foreign_key": "organization_id"},
		{"table_name": "folders", "foreign_key": "parent_id"}, {"table_name": "folders", "foreign_key": "moved_from_id"}]},
	  {"name": "documents", "primary_key": "id", "belongs_tos": [{"table_name": "folders", "foreign_key": "folder_id"}]}]')
WHERE file_name ~ '(folders|documents)' ORDER BY 1;
DROP TABLE iso.documents, iso.folders;

-- A row whose earlier arm names a row of nobody's is decided by its later
-- arms: a thread without an organization is nobody's, and so is a post in
-- it (the parent's set of such rows, recursively), so reaction 1 (such a
-- post, a task of organization 1) is organization 1's, as 3 is (its post
-- is).  Reaction 2 (the same post, a task of organization 2) is not, nor
-- 4 (a post of organization 2, a task of 1: the earlier arm decides), nor
-- 5 (nobody's by both arms).
CREATE TABLE iso.threads (id int PRIMARY KEY, organization_id bigint REFERENCES iso.organizations);
CREATE TABLE iso.posts (id int PRIMARY KEY, thread_id int REFERENCES iso.threads);
CREATE TABLE iso.lists (id int PRIMARY KEY, organization_id bigint NOT NULL REFERENCES iso.organizations);
CREATE TABLE iso.tasks (id int PRIMARY KEY, list_id int NOT NULL REFERENCES iso.lists);
CREATE TABLE iso.reactions (id int PRIMARY KEY, post_id int REFERENCES iso.posts,
							task_id int REFERENCES iso.tasks);
INSERT INTO iso.threads VALUES (10, 1), (20, 2), (70, NULL);
INSERT INTO iso.posts VALUES (11, 10), (21, 20), (71, 70), (72, NULL);
INSERT INTO iso.lists VALUES (30, 1), (40, 2);
INSERT INTO iso.tasks VALUES (31, 30), (41, 40);
INSERT INTO iso.reactions VALUES (1, 71, 31), (2, 71, 41), (3, 11, 41), (4, 21, 31), (5, 72, NULL);
SELECT output, rule, query FROM exwiw_plan('organizations', '{1}',
	'[{"name": "organizations", "primary_key": "id"},
	  {"name": "threads", "primary_key": "id", "belongs_tos": [{"table_name": "organizations", "foreign_key": "organization_id"}]},
	  {"name": "posts", "primary_key": "id", "belongs_tos": [{"table_name": "threads", "foreign_key": "thread_id"}]},
	  {"name": "lists", "primary_key": "id", "belongs_tos": [{"table_name": "organizations", "foreign_key": "organization_id"}]},
	  {"name": "tasks", "primary_key": "id", "belongs_tos": [{"table_name": "lists", "foreign_key": "list_id"}]},
	  {"name": "reactions", "primary_key": "id", "belongs_tos": [{"table_name": "posts", "foreign_key": "post_id"}, {"table_name": "tasks", "foreign_key": "task_id"}]}]')
WHERE output ~ '^exwiw_u_' OR (seq IS NOT NULL AND table_name = 'reactions') ORDER BY step;
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('organizations', '{1}',
	'[{"name": "organizations", "primary_key": "id"},
	  {"name": "threads", "primary_key": "id", "belongs_tos": [{"table_name": "organizations", "foreign_key": "organization_id"}]},
	  {"name": "posts", "primary_key": "id", "belongs_tos": [{"table_name": "threads", "foreign_key": "thread_id"}]},
	  {"name": "lists", "primary_key": "id", "belongs_tos": [{"table_name": "organizations", "foreign_key": "organization_id"}]},
	  {"name": "tasks", "primary_key": "id", "belongs_tos": [{"table_name": "lists", "foreign_key": "list_id"}]},
	  {"name": "reactions", "primary_key": "id", "belongs_tos": [{"table_name": "posts", "foreign_key": "post_id"}, {"table_name": "tasks", "foreign_key": "task_id"}]}]')
WHERE file_name ~ '(reactions|posts)' ORDER BY 1;
-- The same through an earlier arm on NOT NULL columns: it decides every
-- row only where every row of its parent is somebody's.  A list is (its
-- organization_id is NOT NULL), so a list note's post_id is no arm, and
-- list note 2 is organization 2's whatever its post; a post may be
-- nobody's, so a pin whose post is nobody's (1) is decided by its task,
-- and one whose post is organization 2's (2) stays that one's.
CREATE TABLE iso.pins (id int PRIMARY KEY, post_id int NOT NULL REFERENCES iso.posts,
					   task_id int REFERENCES iso.tasks);
CREATE TABLE iso.list_notes (id int PRIMARY KEY, list_id int NOT NULL REFERENCES iso.lists,
							 post_id int REFERENCES iso.posts);
INSERT INTO iso.pins VALUES (1, 71, 31), (2, 21, 31), (3, 11, NULL);
INSERT INTO iso.list_notes VALUES (1, 30, 71), (2, 40, 11);
SELECT table_name, rule FROM exwiw_plan('organizations', '{1}',
	'[{"name": "organizations", "primary_key": "id"},
	  {"name": "threads", "primary_key": "id", "belongs_tos": [{"table_name": "organizations", "foreign_key": "organization_id"}]},
	  {"name": "posts", "primary_key": "id", "belongs_tos": [{"table_name": "threads", "foreign_key": "thread_id"}]},
	  {"name": "lists", "primary_key": "id", "belongs_tos": [{"table_name": "organizations", "foreign_key": "organization_id"}]},
	  {"name": "tasks", "primary_key": "id", "belongs_tos": [{"table_name": "lists", "foreign_key": "list_id"}]},
	  {"name": "pins", "primary_key": "id", "belongs_tos": [{"table_name": "posts", "foreign_key": "post_id"}, {"table_name": "tasks", "foreign_key": "task_id"}]},
	  {"name": "list_notes", "primary_key": "id", "belongs_tos": [{"table_name": "lists", "foreign_key": "list_id"}, {"table_name": "posts", "foreign_key": "post_id"}]}]')
WHERE seq IS NOT NULL AND table_name IN ('pins', 'list_notes') ORDER BY table_name;
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('organizations', '{1}',
	'[{"name": "organizations", "primary_key": "id"},
	  {"name": "threads", "primary_key": "id", "belongs_tos": [{"table_name": "organizations", "foreign_key": "organization_id"}]},
	  {"name": "posts", "primary_key": "id", "belongs_tos": [{"table_name": "threads", "foreign_key": "thread_id"}]},
	  {"name": "lists", "primary_key": "id", "belongs_tos": [{"table_name": "organizations", "foreign_key": "organization_id"}]},
	  {"name": "tasks", "primary_key": "id", "belongs_tos": [{"table_name": "lists", "foreign_key": "list_id"}]},
	  {"name": "pins", "primary_key": "id", "belongs_tos": [{"table_name": "posts", "foreign_key": "post_id"}, {"table_name": "tasks", "foreign_key": "task_id"}]},
	  {"name": "list_notes", "primary_key": "id", "belongs_tos": [{"table_name": "lists", "foreign_key": "list_id"}, {"table_name": "posts", "foreign_key": "post_id"}]}]')
WHERE file_name ~ '(pins|list_notes)' ORDER BY 1;
DROP TABLE iso.pins, iso.list_notes, iso.reactions, iso.tasks, iso.lists, iso.posts, iso.threads;

-- A cycle of NOT NULL keys: an error that names it.
CREATE TABLE iso.a (id int PRIMARY KEY, b_id int NOT NULL);
CREATE TABLE iso.b (id int PRIMARY KEY, a_id int NOT NULL REFERENCES iso.a);
ALTER TABLE iso.a ADD FOREIGN KEY (b_id) REFERENCES iso.b;
SELECT * FROM exwiw_plan('a', '{1}',
	'[{"name": "a", "primary_key": "id", "belongs_tos": [{"table_name": "b", "foreign_key": "b_id"}]},
	  {"name": "b", "primary_key": "id", "belongs_tos": [{"table_name": "a", "foreign_key": "a_id"}]}]');


RESET search_path;
DROP TABLE files;
DROP SCHEMA iso CASCADE;
DROP SCHEMA iso_dst CASCADE;
REVOKE ALL ON SCHEMA public FROM iso_writer;
DROP ROLE iso_writer;
DROP ROLE iso_loader;

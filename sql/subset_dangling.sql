-- Which tenant a row belongs to is decided by evidence, not by name order
-- (issue 36): GitLab's ci_builds has runner_id -> ci_runners (inferred,
-- nullable, no foreign key: GitLab leaves such values until a cleanup job
-- runs) and project_id -> projects (NOT NULL), two equally short paths to
-- organizations.  The NOT NULL one is the path (it used to be runner_id, by
-- name): a build whose runner_id names a deleted runner is decided by its
-- project, and so is a build of organization 1's project that ran on
-- organization 2's runner (104).  A key that names no row decides nothing
-- where no validated foreign key enforces the arm (sql/subset_arms.sql has
-- more arms; an arm that a validated foreign key enforces on NOT NULL
-- columns decides every row: subset_shapes, "is never NULL").
SET client_min_messages = warning;
CREATE SCHEMA dangling;
SET search_path = dangling, public;
CREATE TABLE organizations (id bigint PRIMARY KEY);
CREATE TABLE projects (id bigint PRIMARY KEY, organization_id bigint NOT NULL REFERENCES organizations);
CREATE TABLE ci_runners (id bigint PRIMARY KEY, organization_id bigint REFERENCES organizations);
CREATE TABLE ci_runner_machines (id bigint PRIMARY KEY, runner_id bigint NOT NULL REFERENCES ci_runners);
CREATE TABLE ci_builds (id bigint PRIMARY KEY, runner_id bigint, project_id bigint NOT NULL);
INSERT INTO organizations VALUES (1), (2);
INSERT INTO projects VALUES (10, 1), (20, 2);
INSERT INTO ci_runners VALUES (5, NULL), (6, 1), (7, 2);
INSERT INTO ci_builds VALUES (100, 999, 10), (101, NULL, 10), (102, 5, 10), (103, 6, 10), (104, 7, 10),
	(200, 999, 20);

-- the config the catalog gives: runner_id and project_id, both inferred
SELECT t ->> 'name' AS table_name, b ->> 'foreign_key' AS foreign_key, b ->> 'table_name' AS parent
FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t,
	jsonb_array_elements(t -> 'belongs_tos') b
WHERE t ->> 'name' = 'ci_builds';

-- organization 1: builds 100 to 104; organization 2: build 200
SELECT o AS organization, string_agg(l, ' ' ORDER BY l) AS builds
FROM unnest('{1,2}'::bigint[]) o,
	LATERAL (SELECT chunk FROM exwiw_export('organizations', ARRAY[o::text], exwiw_config_from_catalog())
			 WHERE file_name ~ 'ci_builds') e,
	LATERAL regexp_split_to_table(e.chunk, E'\n') l
WHERE l ~ '^\('
GROUP BY o ORDER BY o;

-- the plan says how the arms decide
SELECT table_name, rule FROM exwiw_plan('organizations', '{1}', exwiw_config_from_catalog())
WHERE table_name IN ('ci_builds', 'ci_runner_machines') ORDER BY 1, 2;

RESET search_path;
DROP SCHEMA dangling CASCADE;
RESET client_min_messages;

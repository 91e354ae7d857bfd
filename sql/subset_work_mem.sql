-- exwiw.work_mem: while an export runs, work_mem is at most exwiw.work_mem
-- (default 4MB), whatever the session's; the session's comes back after.
-- A trusted raw_sql reads the setting the export's query runs with.
CREATE SCHEMA wm;
CREATE TABLE wm.shops (id int PRIMARY KEY, note text);
INSERT INTO wm.shops VALUES (1, 'x');
\set cfg '[{"name": "wm.shops", "primary_key": "id", "columns": [{"name": "id"}, {"name": "note", "raw_sql": "pg_catalog.current_setting(''work_mem'')", "raw_sql_trusted": true}]}]'
SET work_mem = '64MB';
SELECT substring(chunk FROM '\(''1'', ''([^'']*)''\)') AS work_mem_in_export
  FROM exwiw_export('wm.shops', '{1}', :'cfg') WHERE file_name LIKE 'insert-%';
SHOW exwiw.work_mem;
SHOW work_mem;
-- 0: the session's
SET exwiw.work_mem = 0;
SELECT substring(chunk FROM '\(''1'', ''([^'']*)''\)') AS work_mem_in_export
  FROM exwiw_export('wm.shops', '{1}', :'cfg') WHERE file_name LIKE 'insert-%';
-- a session's work_mem below the cap stays
RESET exwiw.work_mem;
SET work_mem = '1MB';
SELECT substring(chunk FROM '\(''1'', ''([^'']*)''\)') AS work_mem_in_export
  FROM exwiw_export('wm.shops', '{1}', :'cfg') WHERE file_name LIKE 'insert-%';
-- below 0 is refused (the message's units differ between majors)
DO $$ BEGIN SET exwiw.work_mem = -1; EXCEPTION WHEN invalid_parameter_value THEN RAISE NOTICE 'refused: %', SQLSTATE; END $$;
RESET work_mem;
DROP SCHEMA wm CASCADE;

-- test/subset/unmasked.sql: included by the fixtures (fixture.sql,
-- shapes.sql).
-- The catalog config without the default masks of safe mode, for tests
-- that compare exported rows with the source rows.
CREATE OR REPLACE FUNCTION public.exwiw_test_unmasked(cfg jsonb) RETURNS jsonb
LANGUAGE sql AS $$
	SELECT jsonb_build_object('tables', jsonb_agg(
		t || jsonb_build_object('columns', (SELECT jsonb_agg(c - 'replace_with' - 'replace_with_fake_data' - 'raw_sql' - 'comment' - 'needs_mask_decision' ORDER BY k)
											FROM jsonb_array_elements(t -> 'columns') WITH ORDINALITY AS y(c, k)))
		ORDER BY n))
	FROM jsonb_array_elements(cfg -> 'tables') WITH ORDINALITY AS x(t, n)
$$;

-- Slices (issue 40): "limit" keeps at most N of a table's own rows per
-- group, the first by its order; "sample" a stable share, by a hash of the
-- key.  Children of a row left out are left out; rows the kept rows
-- reference still come (the files load).
SET client_min_messages = warning;
CREATE SCHEMA sl;
SET search_path = sl, public;
CREATE TABLE shops (id int PRIMARY KEY);
CREATE TABLE customers (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops);
CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers,
                     ordered_at timestamptz NOT NULL);
CREATE TABLE order_items (id int PRIMARY KEY, order_id int NOT NULL REFERENCES orders);
-- a refund of shop 1 names an old order of shop 1 that the limit leaves
-- out: a child of a row left out, it is left out too (though shop 1's by
-- its own shop_id)
CREATE TABLE refunds (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops,
                      order_id int NOT NULL REFERENCES orders);
CREATE INDEX ON customers (shop_id);
CREATE INDEX ON orders (customer_id);
CREATE INDEX ON order_items (order_id);
CREATE INDEX ON refunds (shop_id);
INSERT INTO shops SELECT g FROM generate_series(1, 3) g;
INSERT INTO customers SELECT g, 1 + g % 3 FROM generate_series(1, 12) g;
INSERT INTO orders SELECT g, 1 + g % 12, timestamptz '2026-01-01' + g * interval '1 hour'
  FROM generate_series(1, 240) g;
INSERT INTO order_items SELECT g, 1 + g % 240 FROM generate_series(1, 720) g;
INSERT INTO refunds VALUES (1, 1, 2);   -- order 2: customer 3 of shop 1, its oldest
INSERT INTO refunds VALUES (2, 2, 13);  -- order 13: shop 2's refund, another shop's order
ANALYZE;

CREATE TEMP TABLE cfg AS SELECT exwiw_config_from_catalog('sl') AS c;
CREATE FUNCTION pg_temp.with_key(cfg jsonb, tbl text, kv jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_set(cfg, '{tables}', (SELECT jsonb_agg(CASE WHEN t->>'name' = tbl THEN t || kv ELSE t END ORDER BY n)
                                       FROM jsonb_array_elements(cfg->'tables') WITH ORDINALITY x(t, n)))
$$;
-- the ids of each file of an export
CREATE FUNCTION pg_temp.ids(cfg jsonb, target text, ids text[])
RETURNS TABLE (tbl text, id int) LANGUAGE sql AS $$
  SELECT substring(file_name FROM '^insert-[0-9]+-(.*)\.sql$'), m[1]::int
    FROM exwiw_export(target, ids, cfg), LATERAL regexp_matches(chunk, E'^\\(''([0-9]+)''', 'gn') AS m
   WHERE file_name LIKE 'insert-%'
$$;

-- the newest 3 orders of each customer of shop 1
UPDATE cfg SET c = pg_temp.with_key(c, 'orders',
  '{"limit": {"rows": 3, "per": "customer_id", "order_by": "ordered_at DESC, id DESC"}}');
SELECT table_name, rule FROM exwiw_plan('shops', '{1}', (SELECT c FROM cfg))
 WHERE seq IS NOT NULL AND table_name IN ('orders', 'order_items') ORDER BY seq;
CREATE TEMP TABLE got AS SELECT * FROM pg_temp.ids((SELECT c FROM cfg), 'shops', '{1}');
CREATE TEMP TABLE want_orders AS
  SELECT id FROM (SELECT o.id, row_number() OVER (PARTITION BY o.customer_id ORDER BY o.ordered_at DESC, o.id DESC) AS rn
                    FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.shop_id = 1) s
   WHERE rn <= 3;
-- the orders: the limited ones, exactly; the refund of an old order is
-- left out with it, so the order does not come back as its parent
SELECT r.id, r.order_id, r.id IN (SELECT id FROM got WHERE tbl = 'refunds') AS exported,
       r.order_id IN (SELECT id FROM want_orders) AS order_kept
FROM refunds r WHERE r.shop_id = 1;
SELECT (SELECT count(*) FROM ((SELECT id FROM got WHERE tbl = 'orders' EXCEPT SELECT id FROM want_orders)
                              UNION ALL (SELECT id FROM want_orders EXCEPT SELECT id FROM got WHERE tbl = 'orders')) d)
       AS orders_differ,
       (SELECT count(*) FROM got WHERE tbl = 'orders') AS orders;
-- the items: those of the kept orders only (not of the refund's old order)
DELETE FROM want_orders WHERE id IN (SELECT order_id FROM refunds);
SELECT (SELECT count(*) FROM ((SELECT id FROM got WHERE tbl = 'order_items'
                               EXCEPT SELECT id FROM order_items WHERE order_id IN (SELECT id FROM want_orders))
                              UNION ALL (SELECT id FROM order_items WHERE order_id IN (SELECT id FROM want_orders)
                                         EXCEPT SELECT id FROM got WHERE tbl = 'order_items')) d) AS items_differ,
       (SELECT count(*) FROM got WHERE tbl = 'order_items') AS items;

-- a limit in all (no "per"), and on the target itself
SELECT tbl, array_agg(id ORDER BY id) FROM pg_temp.ids(pg_temp.with_key((SELECT c FROM cfg), 'orders',
  '{"limit": {"rows": 2, "order_by": "ordered_at"}}'), 'shops', '{1}')
 WHERE tbl IN ('orders') GROUP BY 1;
SELECT tbl, array_agg(id ORDER BY id) FROM pg_temp.ids(pg_temp.with_key((SELECT c FROM cfg), 'shops',
  '{"limit": {"rows": 1, "order_by": "id DESC"}}'), 'shops', '{1,2}')
 WHERE tbl IN ('shops', 'customers') GROUP BY 1 ORDER BY 1;

-- a sample: a stable share, the same rows on every run; another seed,
-- other rows; 1 keeps every row
UPDATE cfg SET c = pg_temp.with_key(c, 'orders', '{"limit": null}');
UPDATE cfg SET c = pg_temp.with_key(c, 'order_items', '{"sample": {"fraction": 0.25, "seed": "a"}}');
SELECT count(*) BETWEEN 40 AND 80 AS about_a_quarter_of_240,
       count(*) = (SELECT count(*) FROM pg_temp.ids((SELECT c FROM cfg), 'shops', '{1}') WHERE tbl = 'order_items') AS stable
  FROM pg_temp.ids((SELECT c FROM cfg), 'shops', '{1}') WHERE tbl = 'order_items';
SELECT (SELECT array_agg(id ORDER BY id) FROM pg_temp.ids((SELECT c FROM cfg), 'shops', '{1}') WHERE tbl = 'order_items')
     = (SELECT array_agg(id ORDER BY id) FROM pg_temp.ids((SELECT c FROM cfg), 'shops', '{1}') WHERE tbl = 'order_items')
       AS same_rows,
       (SELECT array_agg(id ORDER BY id) FROM pg_temp.ids((SELECT c FROM cfg), 'shops', '{1}') WHERE tbl = 'order_items')
     <> (SELECT array_agg(id ORDER BY id) FROM pg_temp.ids(pg_temp.with_key((SELECT c FROM cfg), 'order_items',
           '{"sample": {"fraction": 0.25, "seed": "b"}}'), 'shops', '{1}') WHERE tbl = 'order_items') AS other_seed_other_rows,
       (SELECT count(*) FROM pg_temp.ids(pg_temp.with_key((SELECT c FROM cfg), 'order_items', '{"sample": 1}'), 'shops', '{1}')
         WHERE tbl = 'order_items') = (SELECT count(*) FROM order_items i JOIN orders o ON o.id = i.order_id
                                        JOIN customers c ON c.id = o.customer_id WHERE c.shop_id = 1) AS one_keeps_all;

-- the two forms of a limit (plan/limit.c): a top-N per value (an index
-- leads with per and order_by, and order_by names the whole key) or the
-- window; each checked against row_number() over the tenant's rows
CREATE TABLE events (id int PRIMARY KEY, shop_id int REFERENCES shops, kind text,
                     at timestamptz NOT NULL, score int);
CREATE TABLE event_tags (id int PRIMARY KEY, event_id int NOT NULL REFERENCES events);
CREATE TABLE visits (shop_id int REFERENCES shops, visit_no int, PRIMARY KEY (shop_id, visit_no));
CREATE TABLE clicks (id int PRIMARY KEY, shop_id int, visit_no int, at timestamptz NOT NULL,
                     FOREIGN KEY (shop_id, visit_no) REFERENCES visits);
-- related to nothing: every row is the tenant's
CREATE TABLE notes (id int PRIMARY KEY, topic text, at timestamptz NOT NULL);
CREATE INDEX ON event_tags (event_id);
CREATE INDEX ON events (shop_id);
-- ties in "at" (five values), NULL scores, NULL kinds, events of no shop
INSERT INTO events SELECT g, CASE WHEN g % 17 = 0 THEN NULL ELSE 1 + g % 3 END,
                          CASE WHEN g % 5 = 0 THEN NULL ELSE 'k' || g % 2 END,
                          timestamptz '2026-01-01' + (g % 5) * interval '1 day',
                          CASE WHEN g % 4 = 0 THEN NULL ELSE g % 7 END
  FROM generate_series(1, 300) g;
INSERT INTO event_tags SELECT g, 1 + g % 300 FROM generate_series(1, 600) g;
INSERT INTO visits SELECT s, v FROM generate_series(1, 3) s, generate_series(1, 4) v;
INSERT INTO clicks SELECT g, 1 + g % 3, 1 + g % 4, timestamptz '2026-01-01' + (g % 3) * interval '1 hour'
  FROM generate_series(1, 240) g;
INSERT INTO notes SELECT g, CASE WHEN g % 6 = 0 THEN NULL ELSE 't' || g % 4 END,
                         timestamptz '2026-01-01' + (g % 3) * interval '1 hour'
  FROM generate_series(1, 90) g;
ANALYZE;
CREATE TEMP TABLE cfg2 AS SELECT exwiw_config_from_catalog('sl') AS c;
-- the form of tbl's limit, and how its exported rows differ from those
-- row_number() keeps among the tenant's rows (tenant: their condition)
CREATE FUNCTION pg_temp.limited(tbl text, lim jsonb, tenant text)
RETURNS TABLE (form text, differ bigint, kept bigint) LANGUAGE plpgsql AS $$
DECLARE
  c jsonb := pg_temp.with_key((SELECT cfg2.c FROM cfg2), tbl, jsonb_build_object('limit', lim));
  per text := (SELECT string_agg(quote_ident(p), ', ') FROM jsonb_array_elements_text(
                 CASE jsonb_typeof(lim->'per') WHEN 'array' THEN lim->'per' ELSE jsonb_build_array(lim->'per') END) p);
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS w (id int);
  CREATE TEMP TABLE IF NOT EXISTS g (id int);
  TRUNCATE w, g;
  EXECUTE format('INSERT INTO w SELECT id FROM (SELECT id, row_number() OVER (%s ORDER BY %s) AS rn FROM %I WHERE %s) s WHERE rn <= %s',
                 CASE WHEN per IS NOT NULL THEN 'PARTITION BY ' || per END, lim->>'order_by', tbl, tenant, lim->>'rows');
  INSERT INTO g SELECT x.id FROM pg_temp.ids(c, 'shops', '{1,2}') x WHERE x.tbl = limited.tbl;
  RETURN QUERY
    SELECT (SELECT CASE WHEN bool_or(p.query LIKE '%row_number()%') THEN 'window'
                        WHEN bool_or(p.query ~ 'LIMIT [0-9]+\) AS exwiw_l') THEN 'top-N' END
              FROM exwiw_plan('shops', '{1,2}', c) p WHERE p.table_name = tbl),
           (SELECT count(*) FROM ((SELECT id FROM g EXCEPT SELECT id FROM w)
                                  UNION ALL (SELECT id FROM w EXCEPT SELECT id FROM g)) d),
           (SELECT count(*) FROM g);
END $$;
-- no index leads with shop_id and at, and a partial one does not count: window
CREATE INDEX ON events (shop_id, at, id) WHERE score > 0;
SELECT * FROM pg_temp.limited('events', '{"rows": 4, "per": "shop_id", "order_by": "at DESC, id DESC"}', $$shop_id IN (1, 2)$$);
-- with one (scanned backwards): top-N per shop, the same rows; NULL shop_ids
-- are nobody's rows, in either form
CREATE INDEX events_shop_at ON events (shop_id, at, id);
SELECT * FROM pg_temp.limited('events', '{"rows": 4, "per": "shop_id", "order_by": "at DESC, id DESC"}', $$shop_id IN (1, 2)$$);
SELECT * FROM pg_temp.limited('events', '{"rows": 4, "per": "shop_id", "order_by": "at, id"}', $$shop_id IN (1, 2)$$);
-- mixed directions the index does not have either way: window
SELECT * FROM pg_temp.limited('events', '{"rows": 4, "per": "shop_id", "order_by": "at DESC, id"}', $$shop_id IN (1, 2)$$);
-- ties: order_by without the key is taken by the window (which rows of a
-- tie it keeps is its own choice: only the count is compared)
SELECT form, kept FROM pg_temp.limited('events', '{"rows": 4, "per": "shop_id", "order_by": "at DESC"}', $$shop_id IN (1, 2)$$);
-- DESC NULLS LAST over NULL scores, with a filter; an expression: window
CREATE INDEX ON events (shop_id, score DESC NULLS LAST, id);
UPDATE cfg2 SET c = pg_temp.with_key(c, 'events', '{"filter": "kind IS DISTINCT FROM ''k0''"}');
SELECT * FROM pg_temp.limited('events', '{"rows": 5, "per": "shop_id", "order_by": "score DESC NULLS LAST, id"}', $$shop_id IN (1, 2) AND kind IS DISTINCT FROM 'k0'$$);
SELECT * FROM pg_temp.limited('events', '{"rows": 5, "per": "shop_id", "order_by": "score DESC, id"}', $$shop_id IN (1, 2) AND kind IS DISTINCT FROM 'k0'$$);
SELECT * FROM pg_temp.limited('events', '{"rows": 5, "per": "shop_id", "order_by": "coalesce(score, 0) DESC, id"}', $$shop_id IN (1, 2) AND kind IS DISTINCT FROM 'k0'$$);
UPDATE cfg2 SET c = pg_temp.with_key(c, 'events', '{"filter": null}');
-- per a column that is not the seed's key (NULL kinds make a group of
-- their own), even with an index: window
CREATE INDEX ON events (kind, at, id);
SELECT * FROM pg_temp.limited('events', '{"rows": 3, "per": "kind", "order_by": "at, id"}', $$shop_id IN (1, 2)$$);
-- no per: one LIMIT over the seed, when an index leads with order_by
SELECT * FROM pg_temp.limited('events', '{"rows": 7, "order_by": "at DESC, id DESC"}', $$shop_id IN (1, 2)$$);
CREATE INDEX ON events (at, id);
SELECT * FROM pg_temp.limited('events', '{"rows": 7, "order_by": "at DESC, id DESC"}', $$shop_id IN (1, 2)$$);
-- the children of the kept events only
CREATE TEMP TABLE g2 AS SELECT * FROM pg_temp.ids(pg_temp.with_key((SELECT c FROM cfg2), 'events',
  '{"limit": {"rows": 7, "order_by": "at DESC, id DESC"}}'), 'shops', '{1,2}');
SELECT count(*) AS tags,
       count(*) FILTER (WHERE id NOT IN (SELECT t.id FROM event_tags t WHERE t.event_id IN (SELECT id FROM g2 WHERE tbl = 'events'))) AS of_others
  FROM g2 WHERE tbl = 'event_tags';
SELECT count(*) AS tags_of_kept FROM event_tags WHERE event_id IN (SELECT id FROM g2 WHERE tbl = 'events');
-- a composite per (the composite key of the parent, in another order)
CREATE INDEX ON clicks (shop_id, visit_no, at, id);
SELECT * FROM pg_temp.limited('clicks', '{"rows": 2, "per": ["visit_no", "shop_id"], "order_by": "at, id"}', $$shop_id IN (1, 2)$$);
-- a part of it only: window
SELECT * FROM pg_temp.limited('clicks', '{"rows": 2, "per": "visit_no", "order_by": "at, id"}', $$shop_id IN (1, 2)$$);
-- a table of every row: the values of per by a skip scan of the index,
-- and the group of NULL topics as one more
SELECT * FROM pg_temp.limited('notes', '{"rows": 2, "per": "topic", "order_by": "at DESC, id"}', $$true$$);
CREATE INDEX ON notes (topic, at DESC, id);
SELECT * FROM pg_temp.limited('notes', '{"rows": 2, "per": "topic", "order_by": "at DESC, id"}', $$true$$);
SELECT count(*) FROM exwiw_plan('shops', '{1,2}', pg_temp.with_key((SELECT c FROM cfg2), 'notes',
  '{"limit": {"rows": 2, "per": "topic", "order_by": "at DESC, id"}}'))
 WHERE table_name = 'notes' AND query LIKE '%WITH RECURSIVE exwiw_k%' AND query LIKE '%IS NULL AND%';

-- mistakes
\set VERBOSITY terse
SELECT count(*) FROM exwiw_plan('shops', '{1}', pg_temp.with_key((SELECT c FROM cfg), 'orders', '{"limit": {"rows": 3}}'));
SELECT count(*) FROM exwiw_plan('shops', '{1}', pg_temp.with_key((SELECT c FROM cfg), 'orders', '{"limit": {"order_by": "id"}}'));
SELECT count(*) FROM exwiw_plan('shops', '{1}', pg_temp.with_key((SELECT c FROM cfg), 'orders', '{"limit": {"rows": 0, "order_by": "id"}}'));
SELECT count(*) FROM exwiw_plan('shops', '{1}', pg_temp.with_key((SELECT c FROM cfg), 'orders', '{"limit": {"rows": 3, "order_by": "id) AS x FROM orders) s --"}}'));
SELECT count(*) FROM exwiw_plan('shops', '{1}', pg_temp.with_key((SELECT c FROM cfg), 'orders', '{"limit": {"rows": 3, "order_by": "id", "top": 1}}'));
SELECT count(*) FROM exwiw_plan('shops', '{1}', pg_temp.with_key((SELECT c FROM cfg), 'orders', '{"sample": 0}'));
SELECT count(*) FROM exwiw_plan('shops', '{1}', pg_temp.with_key((SELECT c FROM cfg), 'orders', '{"sample": 1.5}'));
SELECT count(*) FROM exwiw_plan('shops', '{1}', pg_temp.with_key((SELECT c FROM cfg), 'orders', '{"sample": "half"}'));
SELECT count(*) FROM exwiw_plan('shops', '{1}', pg_temp.with_key(pg_temp.with_key((SELECT c FROM cfg), 'orders', '{"primary_key": null}'), 'orders', '{"sample": 0.5}'));
\set VERBOSITY default

RESET search_path;
DROP SCHEMA sl CASCADE;
RESET client_min_messages;

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
-- out: it comes back as a parent (its items do not)
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
-- the orders: the limited ones, and the refund's old order (a parent)
INSERT INTO want_orders SELECT order_id FROM refunds WHERE shop_id = 1;
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

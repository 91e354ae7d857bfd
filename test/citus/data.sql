-- test/citus/data.sql: deterministic shop data, the same on the plain node
-- and (through the coordinator) on Citus.  psql variables: shops (number of
-- tenants) and orders (orders per shop; default 20).  Per shop: 20 users,
-- 50 products, :orders orders with 2 items and 1 transaction each, tags on
-- every third order and on ids divisible by 7.  Ids are explicit (a
-- tenant's rows are ids s, s + shops, s + 2 shops, ...), every reference
-- stays within the tenant (as Citus's composite foreign keys require), and
-- every sequence is set to its table's max(id).  Values hold quotes,
-- newlines and backslashes (users.name, announcements.body) and NULLs.
\if :{?orders}
\else
\set orders 20
\endif
SET search_path = shop, public;
INSERT INTO categories (id, parent_id, name) SELECT i, NULL, 'root ' || i FROM generate_series(1, 10) i;
INSERT INTO categories (id, parent_id, name) SELECT 10 + i, 1 + i % 10, 'cat ' || i FROM generate_series(1, 90) i;
INSERT INTO announcements (id, body) SELECT i, 'news ' || i || E'\nwith ''quotes'' and \\ backslash' FROM generate_series(1, 10) i;
INSERT INTO shops (id, name, currency)
	SELECT i, 'shop ' || i, (ARRAY['EUR', 'USD', 'JPY'])[1 + i % 3] FROM generate_series(1, :shops) i;
INSERT INTO users (id, shop_id, email, name, phone, vip)
	SELECT i + 1, 1 + i % :shops, CASE WHEN i % 7 = 0 THEN NULL ELSE 'u' || i || '@x.test' END,
		   'user ' || i || CASE WHEN i % 5 = 0 THEN E' O''Brien\nline' ELSE '' END, '555-' || i, i % 4 = 0
	FROM generate_series(0, 20 * :shops - 1) i;
INSERT INTO products (id, shop_id, category_id, name, price)
	SELECT i + 1, 1 + i % :shops, 11 + i % 90, 'product ' || i, (i % 100) + 0.99
	FROM generate_series(0, 50 * :shops - 1) i;
INSERT INTO orders (id, shop_id, user_id, ordered_at, total)
	SELECT i + 1, 1 + i % :shops, 1 + i % :shops + :shops * ((i / :shops) % 20),
		   timestamptz '2026-01-01 00:00:00+00' + i * interval '1 minute', (i % 500) + 0.5
	FROM generate_series(0, :orders * :shops - 1) i;
INSERT INTO order_items (id, shop_id, order_id, product_id, quantity)
	SELECT (o.id - 1) * 2 + j, o.shop_id, o.id, o.shop_id + :shops * ((o.id + j) % 50), j
	FROM orders o, generate_series(1, 2) j;
INSERT INTO transactions (id, shop_id, order_id, amount, card_last4)
	SELECT id, shop_id, id, total, lpad((id % 10000)::text, 4, '0') FROM orders;
INSERT INTO order_tags (shop_id, order_id, tag)
	SELECT shop_id, id, 'gift' FROM orders WHERE (id - 1) / :shops % 3 = 0;
INSERT INTO order_tags (shop_id, order_id, tag)
	SELECT shop_id, id, 'rush' FROM orders WHERE id % 7 = 0;
INSERT INTO shop_notes (id, shop_id, note)
	SELECT i, 1 + i % :shops, 'note ' || i FROM generate_series(1, 2 * :shops) i;
SELECT setval(pg_get_serial_sequence('shop.' || t, 'id'), m)
FROM (VALUES ('categories', (SELECT max(id) FROM categories)),
			 ('announcements', (SELECT max(id) FROM announcements)),
			 ('shops', (SELECT max(id) FROM shops)),
			 ('users', (SELECT max(id) FROM users)),
			 ('products', (SELECT max(id) FROM products)),
			 ('orders', (SELECT max(id) FROM orders)),
			 ('order_items', (SELECT max(id) FROM order_items)),
			 ('transactions', (SELECT max(id) FROM transactions)),
			 ('shop_notes', (SELECT max(id) FROM shop_notes))) AS s(t, m);
ANALYZE;

-- bench/shops_1000.sql: the benchmark dataset of bench/subset.sh and bench/cli.sh,
-- loaded over test/subset/fixture.sql: 1,000 shops, 20,000 users, 50,000
-- products, 1,000,000 orders, 2,000,000 order items, 1,000,000 transactions,
-- 100,000 order tags (about 450 MB); with psql -v skewed=1 the orders are
-- skewed (below).
SET search_path = shop;
TRUNCATE shops, users, categories, products, orders, order_items, transactions,
	order_tags, announcements RESTART IDENTITY;
INSERT INTO shops (name) SELECT 'shop ' || i FROM generate_series(1, 1000) i;
INSERT INTO categories (parent_id, name) SELECT NULL, 'root ' || i FROM generate_series(1, 10) i;
INSERT INTO categories (parent_id, name) SELECT 1 + i % 10, 'cat ' || i FROM generate_series(1, 90) i;
-- users, products and orders of shop s have ids s + 1000 k
INSERT INTO users (shop_id, email, name, phone)
	SELECT 1 + i % 1000, 'u' || i || '@x.test', 'user ' || i, '555-' || i
	FROM generate_series(0, 19999) i;
INSERT INTO products (shop_id, category_id, name, price)
	SELECT 1 + i % 1000, 1 + i % 100, 'product ' || i, (i % 100) + 0.99
	FROM generate_series(0, 49999) i;
\if :{?skewed}
-- skewed (psql -v skewed=1, bench/tenant_vs_copy.sh): shop 1 holds a tenth
-- of the orders, shops 2-10 another tenth (1.1% each), the other 990 shops
-- the rest (0.08% each), as SaaS tenants are; users and products as above
INSERT INTO orders (shop_id, user_id, ordered_at, total)
	SELECT s, s + 1000 * ((i / 1000) % 20),
		   timestamptz '2026-01-01' + i * interval '1 minute', (i % 500) + 0.5
	FROM (SELECT i, CASE WHEN i % 10 = 0 THEN 1
						 WHEN i % 10 = 1 THEN 2 + (i / 10) % 9
						 ELSE 11 + ((i / 10) * 8 + i % 10 - 2) % 990 END AS s
		  FROM generate_series(0, 999999) i) g;
\else
INSERT INTO orders (shop_id, user_id, ordered_at, total)
	SELECT 1 + i % 1000, 1 + i % 1000 + 1000 * ((i / 1000) % 20),
		   timestamptz '2026-01-01' + i * interval '1 minute', (i % 500) + 0.5
	FROM generate_series(0, 999999) i;
\endif
INSERT INTO order_items (order_id, product_id, quantity)
	SELECT o.id, o.shop_id + 1000 * ((o.id + j) % 50), j
	FROM orders o, generate_series(1, 2) j;
INSERT INTO transactions (order_id, amount, card_last4)
	SELECT id, total, lpad((id % 10000)::text, 4, '0') FROM orders;
INSERT INTO order_tags SELECT id, 'gift' FROM orders WHERE id % 10 = 0;
INSERT INTO announcements (body) SELECT 'news ' || i FROM generate_series(1, 10) i;
VACUUM ANALYZE;

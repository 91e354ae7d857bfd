-- test/subset/fixture.sql: the relational fixture of the subset export
-- tests, in a fresh schema "shop" that becomes the current schema.
--
--   shops 1..3; users belong to shops; categories form a tree (parent_id);
--   products belong to shops and categories; orders belong to shops and
--   users; order_items to orders and products; transactions to orders (no
--   index on transactions.order_id, on purpose); order_tags has a composite
--   primary key; announcements is related to nothing.
--
-- Cross-shop references, which the closure must follow: order 3 (shop 1) was
-- placed by user 3 (shop 2), and order item 3 (order 2, shop 1) is product 4
-- (shop 2).
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS shop CASCADE;
RESET client_min_messages;
CREATE SCHEMA shop;
SET search_path = shop, public;

CREATE TABLE shops (
	id bigserial PRIMARY KEY,
	name text NOT NULL
);
CREATE TABLE users (
	id bigserial PRIMARY KEY,
	shop_id bigint NOT NULL REFERENCES shops,
	email text,
	name text NOT NULL,
	phone text,
	vip boolean NOT NULL DEFAULT false
);
CREATE INDEX ON users (shop_id);
CREATE TABLE categories (
	id serial PRIMARY KEY,
	parent_id integer REFERENCES categories,
	name text NOT NULL
);
CREATE INDEX ON categories (parent_id);
CREATE TABLE products (
	id bigserial PRIMARY KEY,
	shop_id bigint NOT NULL REFERENCES shops,
	category_id integer REFERENCES categories,
	name text NOT NULL,
	price numeric(10,2) NOT NULL
);
CREATE INDEX ON products (shop_id);
CREATE INDEX ON products (category_id);
CREATE TABLE orders (
	id bigserial PRIMARY KEY,
	shop_id bigint NOT NULL REFERENCES shops,
	user_id bigint REFERENCES users,
	ordered_at timestamptz NOT NULL,
	total numeric(10,2) NOT NULL
);
CREATE INDEX ON orders (shop_id);
CREATE INDEX ON orders (user_id);
CREATE TABLE order_items (
	id bigserial PRIMARY KEY,
	order_id bigint NOT NULL REFERENCES orders ON DELETE CASCADE,
	product_id bigint NOT NULL REFERENCES products,
	quantity integer NOT NULL
);
CREATE INDEX ON order_items (order_id);
CREATE INDEX ON order_items (product_id);
CREATE TABLE transactions (
	id bigserial PRIMARY KEY,
	order_id bigint NOT NULL REFERENCES orders ON DELETE CASCADE,
	amount numeric(10,2) NOT NULL,
	card_last4 text
);
CREATE TABLE order_tags (
	order_id bigint REFERENCES orders ON DELETE CASCADE,
	tag text,
	PRIMARY KEY (order_id, tag)
);
CREATE TABLE announcements (
	id serial PRIMARY KEY,
	body text NOT NULL
);

INSERT INTO shops (name) VALUES ('Acme'), ('Bolt'), ('Cyan');
INSERT INTO users (shop_id, email, name, phone, vip) VALUES
	(1, 'alice@acme.test', 'Alice Archer', '555-0101', true),
	(1, NULL, 'Bob O''Brien', NULL, false),
	(2, 'carol@bolt.test', 'Carol Chen', '555-0303', false),
	(3, 'dave@cyan.test', 'Dave Diaz', '555-0404', true);
INSERT INTO categories (parent_id, name) VALUES
	(NULL, 'All'), (1, 'Electronics'), (2, 'Phones'), (1, 'Books'),
	(NULL, 'Garden'), (5, 'Tools');
INSERT INTO products (shop_id, category_id, name, price) VALUES
	(1, 3, 'Phone X', 499.00), (1, 4, 'Novel', 12.50),
	(2, 6, 'Rake', 20.00), (2, 3, 'Phone Y', 399.99), (3, 6, 'Shovel', 25.00);
INSERT INTO orders (shop_id, user_id, ordered_at, total) VALUES
	(1, 1, '2026-01-01 10:00:00+00', 511.50),
	(1, 2, '2026-01-02 11:00:00+00', 399.99),
	(1, 3, '2026-01-03 12:00:00+00', 499.00),
	(2, 3, '2026-01-04 13:00:00+00', 20.00),
	(3, 4, '2026-01-05 14:00:00+00', 25.00);
INSERT INTO order_items (order_id, product_id, quantity) VALUES
	(1, 1, 1), (1, 2, 1), (2, 4, 1), (4, 3, 1), (5, 5, 1), (3, 1, 1);
INSERT INTO transactions (order_id, amount, card_last4) VALUES
	(1, 511.50, '4242'), (2, 399.99, '1881'), (4, 20.00, '0005'), (5, 25.00, NULL);
INSERT INTO order_tags VALUES (1, 'gift'), (4, 'rush');
INSERT INTO announcements (body) VALUES ('Welcome'), ('Maintenance on Sunday');

-- exwiw_test_unmasked(cfg): the catalog config without safe mode's masks
\ir unmasked.sql

-- test/citus/schema.sql: the shop schema of test/subset/fixture.sql and
-- bench/subset.sh, shaped for Citus's multi-tenant model, in a fresh schema
-- "shop".  The same DDL runs on the plain single node and on the
-- coordinator; there, distribute.sql distributes the tables before
-- foreign_keys.sql adds the foreign keys (Citus cannot distribute a table
-- that a local table references).
--
-- Citus requires every PRIMARY KEY, UNIQUE and foreign key between
-- distributed tables to include the distribution column, so every tenant
-- table carries shop_id, its primary key is (shop_id, id) and its foreign
-- keys are (shop_id, x_id) -> (shop_id, id), plus a single-column
-- shop_id -> shops(id).  order_tags has no id: its primary key is
-- (shop_id, order_id, tag).  categories (a tree) and announcements
-- (related to nothing) become reference tables; shop_notes stays a local
-- table of the coordinator, with a shop_id but no foreign key (Citus
-- refuses one from a local to a distributed table).
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS shop CASCADE;
RESET client_min_messages;
CREATE SCHEMA shop;
SET search_path = shop, public;

CREATE TABLE categories (
	id serial PRIMARY KEY,
	parent_id integer,
	name text NOT NULL
);
CREATE TABLE announcements (
	id serial PRIMARY KEY,
	body text NOT NULL
);
CREATE TABLE shops (
	id bigserial PRIMARY KEY,
	name text NOT NULL,
	currency text NOT NULL
);
CREATE TABLE users (
	id bigserial,
	shop_id bigint NOT NULL,
	email text,
	name text NOT NULL,
	phone text,
	vip boolean NOT NULL DEFAULT false,
	PRIMARY KEY (shop_id, id)
);
CREATE TABLE products (
	id bigserial,
	shop_id bigint NOT NULL,
	category_id integer,
	name text NOT NULL,
	price numeric(10,2) NOT NULL,
	PRIMARY KEY (shop_id, id)
);
CREATE INDEX ON products (category_id);
CREATE TABLE orders (
	id bigserial,
	shop_id bigint NOT NULL,
	user_id bigint,
	ordered_at timestamptz NOT NULL,
	total numeric(10,2) NOT NULL,
	PRIMARY KEY (shop_id, id)
);
CREATE INDEX ON orders (shop_id, user_id);
CREATE TABLE order_items (
	id bigserial,
	shop_id bigint NOT NULL,
	order_id bigint NOT NULL,
	product_id bigint NOT NULL,
	quantity integer NOT NULL,
	PRIMARY KEY (shop_id, id)
);
CREATE INDEX ON order_items (shop_id, order_id);
CREATE INDEX ON order_items (shop_id, product_id);
CREATE TABLE transactions (
	id bigserial,
	shop_id bigint NOT NULL,
	order_id bigint NOT NULL,
	amount numeric(10,2) NOT NULL,
	card_last4 text,
	PRIMARY KEY (shop_id, id)
);
CREATE INDEX ON transactions (shop_id, order_id);
CREATE TABLE order_tags (
	shop_id bigint NOT NULL,
	order_id bigint NOT NULL,
	tag text NOT NULL,
	PRIMARY KEY (shop_id, order_id, tag)
);
CREATE TABLE shop_notes (
	id serial PRIMARY KEY,
	shop_id bigint NOT NULL,
	note text NOT NULL
);
CREATE INDEX ON shop_notes (shop_id);

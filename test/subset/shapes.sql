-- test/subset/shapes.sql: a schema "shapes" made of every shape the subset
-- engine must get right, with two tenants (shops 1 and 2) whose rows
-- reference each other in places.  Used by sql/subset_shapes.sql and
-- test/t/subset_shapes.sh.
--
--   shops                 the tenant; "Acme"/"Bolt"
--   languages, films      films.language_id and films.original_language_id
--                         both reference languages (several keys, one parent)
--   inventory             shop_id -> shops, film_id -> films
--   orders                partitioned by range of id; the foreign key to
--                         shops is declared on the parent
--   order_lines           references the partitioned orders
--   payments              partitioned; its foreign keys are declared on the
--                         partitions only (as the well-known sample database
--                         does), one partition has none
--   notes, secret_notes   inheritance: secret_notes INHERITS notes, with its
--                         own key, its own foreign key and a secret column
--   actors, film_actors   a link table with a composite primary key
--   casting_notes         a composite foreign key to film_actors
--   tenants               a character(2) key; flags a bit(3) key
--   tickets               DEFAULT nextval() of a sequence nobody owns
--   invoices              a STORED generated column, an identity column
--                         GENERATED ALWAYS
--   categories            two self-references (parent_id, alias_of)
--   "Odd Name"            a mixed-case name with a space, a column "select"
--   "a/b"                 a name with a slash
--   audit_log             a trigger that writes to it on insert into films
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS shapes CASCADE;
RESET client_min_messages;
CREATE SCHEMA shapes;
SET search_path = shapes, public;

CREATE TABLE shops (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE languages (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE films (
	id int PRIMARY KEY,
	title text NOT NULL,
	language_id int NOT NULL REFERENCES languages,
	original_language_id int REFERENCES languages
);
CREATE TABLE inventory (
	id int PRIMARY KEY,
	shop_id int NOT NULL REFERENCES shops,
	film_id int NOT NULL REFERENCES films
);
CREATE INDEX ON inventory (shop_id);

CREATE TABLE orders (
	id int NOT NULL,
	shop_id int NOT NULL REFERENCES shops,
	total numeric(10,2) NOT NULL,
	PRIMARY KEY (id)
) PARTITION BY RANGE (id);
CREATE TABLE orders_low PARTITION OF orders FOR VALUES FROM (1) TO (100);
CREATE TABLE orders_high PARTITION OF orders FOR VALUES FROM (100) TO (1000);
CREATE INDEX ON orders (shop_id);
CREATE TABLE order_lines (
	id int PRIMARY KEY,
	order_id int NOT NULL REFERENCES orders,
	film_id int NOT NULL REFERENCES films
);
CREATE INDEX ON order_lines (order_id);

CREATE TABLE payments (
	id int NOT NULL,
	shop_id int NOT NULL,
	order_id int,
	amount numeric(10,2) NOT NULL
) PARTITION BY RANGE (id);
CREATE TABLE payments_a PARTITION OF payments FOR VALUES FROM (1) TO (100);
CREATE TABLE payments_b PARTITION OF payments FOR VALUES FROM (100) TO (200);
CREATE TABLE payments_c PARTITION OF payments FOR VALUES FROM (200) TO (300);
ALTER TABLE payments_a ADD PRIMARY KEY (id);
ALTER TABLE payments_b ADD PRIMARY KEY (id);
ALTER TABLE payments_c ADD PRIMARY KEY (id);
ALTER TABLE payments_a ADD FOREIGN KEY (shop_id) REFERENCES shops;
ALTER TABLE payments_b ADD FOREIGN KEY (shop_id) REFERENCES shops;
ALTER TABLE payments_a ADD FOREIGN KEY (order_id) REFERENCES orders;
ALTER TABLE payments_b ADD FOREIGN KEY (order_id) REFERENCES orders;
CREATE INDEX ON payments (shop_id);

CREATE TABLE notes (id int PRIMARY KEY, shop_id int REFERENCES shops, body text);
CREATE TABLE secret_notes (secret text) INHERITS (notes);
ALTER TABLE secret_notes ADD PRIMARY KEY (id);
ALTER TABLE secret_notes ADD FOREIGN KEY (shop_id) REFERENCES shops;
CREATE INDEX ON notes (shop_id);
CREATE INDEX ON secret_notes (shop_id);

CREATE TABLE actors (id int PRIMARY KEY, first_name text, last_name text);
CREATE TABLE film_actors (
	actor_id int REFERENCES actors,
	film_id int REFERENCES films,
	role text,
	PRIMARY KEY (actor_id, film_id)
);
CREATE INDEX ON film_actors (film_id);
CREATE TABLE casting_notes (
	id int PRIMARY KEY,
	film_id int NOT NULL,
	actor_id int NOT NULL,
	note text,
	FOREIGN KEY (film_id, actor_id) REFERENCES film_actors (film_id, actor_id)
);

CREATE TABLE tenants (code character(2) PRIMARY KEY, shop_id int REFERENCES shops);
CREATE TABLE flags (bits bit(3) PRIMARY KEY, tenant_code character(2) REFERENCES tenants);

CREATE SEQUENCE ticket_numbers START 500;
CREATE TABLE tickets (
	id int PRIMARY KEY DEFAULT nextval('ticket_numbers'),
	shop_id int NOT NULL REFERENCES shops
);
CREATE INDEX ON tickets (shop_id);

CREATE TABLE invoices (
	id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	shop_id int NOT NULL REFERENCES shops,
	net numeric(10,2) NOT NULL,
	gross numeric(10,2) GENERATED ALWAYS AS (net * 1.2) STORED
);
CREATE INDEX ON invoices (shop_id);

CREATE TABLE categories (
	id int PRIMARY KEY,
	parent_id int REFERENCES categories,
	alias_of int REFERENCES categories,
	shop_id int REFERENCES shops,
	name text
);
CREATE INDEX ON categories (shop_id);

CREATE TABLE "Odd Name" (
	"ID" int PRIMARY KEY,
	"select" text,
	shop_id int REFERENCES shops
);
CREATE INDEX ON "Odd Name" (shop_id);
CREATE TABLE "a/b" (id int PRIMARY KEY, shop_id int REFERENCES shops);
CREATE INDEX ON "a/b" (shop_id);

CREATE TABLE audit_log (id bigserial PRIMARY KEY, film_id int, at text);
CREATE FUNCTION films_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO shapes.audit_log (film_id, at) VALUES (NEW.id, 'insert');
	RETURN NEW;
END $$;
CREATE TRIGGER films_audit AFTER INSERT ON films
	FOR EACH ROW EXECUTE FUNCTION films_audit();

INSERT INTO shops VALUES (1, 'Acme'), (2, 'Bolt');
INSERT INTO languages VALUES (1, 'English'), (2, 'French'), (3, 'German'), (4, 'Italian');
-- film 1: English, originally French; film 2: German; film 3: Italian (shop 2 only)
INSERT INTO films VALUES (1, 'Rain', 1, 2), (2, 'Snow', 3, NULL), (3, 'Sun', 4, 4);
INSERT INTO inventory VALUES (1, 1, 1), (2, 1, 2), (3, 2, 3), (4, 2, 1);
INSERT INTO orders VALUES (1, 1, 10.00), (150, 1, 20.00), (2, 2, 30.00), (151, 2, 40.00);
-- order line 3 (of shop 2's order 2) shows film 1; line 4 of shop 1's order 150 shows film 3
INSERT INTO order_lines VALUES (1, 1, 1), (2, 150, 2), (3, 2, 1), (4, 150, 3);
INSERT INTO payments VALUES (1, 1, 1, 10.00), (101, 1, 150, 20.00), (2, 2, 2, 30.00),
	(102, 2, 151, 40.00), (201, 1, NULL, 5.00), (202, 2, NULL, 6.00);
INSERT INTO notes VALUES (1, 1, 'note one'), (2, 2, 'note two');
INSERT INTO secret_notes VALUES (3, 1, 'secret one', 'S1'), (4, 2, 'secret two', 'S2');
INSERT INTO actors VALUES (1, 'Ann', 'Lee'), (2, 'Bo', 'Ng'), (3, 'Cy', 'Ox');
INSERT INTO film_actors VALUES (1, 1, 'lead'), (2, 1, 'extra'), (2, 2, 'lead'), (3, 3, 'lead');
INSERT INTO casting_notes VALUES (1, 1, 1, 'great'), (2, 3, 3, 'fine');
INSERT INTO tenants VALUES ('a', 1), ('ab', 2);
INSERT INTO flags VALUES ('101', 'a'), ('011', 'ab');
INSERT INTO tickets (shop_id) VALUES (1), (2), (1);
INSERT INTO invoices (shop_id, net) VALUES (1, 100), (2, 200), (1, 50);
INSERT INTO categories VALUES
	(1, NULL, NULL, 1, 'root'),
	(2, 1, NULL, 1, 'child'),
	(3, 2, 1, 1, 'grandchild, alias of root'),
	(4, NULL, 3, 2, 'shop 2: alias of a shop 1 category'),
	(5, 4, NULL, 2, 'shop 2 child');
INSERT INTO "Odd Name" VALUES (1, 'it''s', 1), (2, E'tab\there', 2);
INSERT INTO "a/b" VALUES (1, 1), (2, 2);
ANALYZE;

-- exwiw_test_unmasked(cfg): the catalog config without safe mode's masks
\ir unmasked.sql

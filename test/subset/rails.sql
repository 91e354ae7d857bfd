-- test/subset/rails.sql: a Rails-shaped schema "rails" with two accounts:
-- users, posts and photos of accounts, comments on posts and on photos
-- (polymorphic: commentable_type + commentable_id, no foreign key),
-- ActiveStorage (active_storage_blobs, active_storage_attachments with a
-- polymorphic record), tags shared by every account (referenced by many
-- scoped tables: a reverse_scope), schema_migrations and
-- ar_internal_metadata.  Its schema directory, in the Ruby client's layout,
-- is test/subset/rails_schema/*.json.
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS rails CASCADE;
RESET client_min_messages;
CREATE SCHEMA rails;
SET search_path = rails, public;

CREATE TABLE accounts (id bigserial PRIMARY KEY, name varchar NOT NULL);
CREATE TABLE users (id bigserial PRIMARY KEY, account_id bigint NOT NULL REFERENCES accounts,
	email varchar NOT NULL, full_name varchar, created_at timestamp(6) NOT NULL);
CREATE INDEX ON users (account_id);
CREATE TABLE tags (id bigserial PRIMARY KEY, label varchar NOT NULL);
CREATE TABLE posts (id bigserial PRIMARY KEY, account_id bigint NOT NULL REFERENCES accounts,
	user_id bigint NOT NULL REFERENCES users, tag_id bigint REFERENCES tags, title varchar NOT NULL);
CREATE INDEX ON posts (account_id);
CREATE TABLE photos (id bigserial PRIMARY KEY, account_id bigint NOT NULL REFERENCES accounts,
	user_id bigint NOT NULL REFERENCES users, tag_id bigint REFERENCES tags, caption varchar);
CREATE INDEX ON photos (account_id);
CREATE TABLE comments (id bigserial PRIMARY KEY, commentable_type varchar NOT NULL,
	commentable_id bigint NOT NULL, user_id bigint NOT NULL REFERENCES users, body text NOT NULL);
CREATE INDEX ON comments (commentable_type, commentable_id);
CREATE TABLE active_storage_blobs (id bigserial PRIMARY KEY, key varchar NOT NULL UNIQUE,
	filename varchar NOT NULL, byte_size bigint NOT NULL);
CREATE TABLE active_storage_attachments (id bigserial PRIMARY KEY, name varchar NOT NULL,
	record_type varchar NOT NULL, record_id bigint NOT NULL,
	blob_id bigint NOT NULL REFERENCES active_storage_blobs);
CREATE INDEX ON active_storage_attachments (record_type, record_id);
CREATE TABLE schema_migrations (version varchar PRIMARY KEY);
CREATE TABLE ar_internal_metadata (key varchar PRIMARY KEY, value varchar,
	created_at timestamp(6) NOT NULL, updated_at timestamp(6) NOT NULL);

INSERT INTO accounts (name) VALUES ('Acme'), ('Bolt');
INSERT INTO users (account_id, email, full_name, created_at) VALUES
	(1, 'ann@acme.test', 'Ann Archer', '2026-01-01'), (1, 'bob@acme.test', NULL, '2026-01-02'),
	(2, 'cid@bolt.test', 'Cid Chen', '2026-01-03');
INSERT INTO tags (label) VALUES ('news'), ('travel'), ('food'), ('unused');
INSERT INTO posts (account_id, user_id, tag_id, title) VALUES
	(1, 1, 1, 'Hello'), (1, 2, NULL, 'Again'), (2, 3, 3, 'Bolt news');
INSERT INTO photos (account_id, user_id, tag_id, caption) VALUES
	(1, 1, 2, 'Beach'), (2, 3, 3, 'Lunch');
-- comment 5 is on post 3 (account 2) by user 1 (account 1)
INSERT INTO comments (commentable_type, commentable_id, user_id, body) VALUES
	('Post', 1, 2, 'nice'), ('Photo', 1, 2, 'wow'), ('Post', 3, 3, 'ok'),
	('Photo', 2, 3, 'yum'), ('Post', 3, 1, 'from acme');
INSERT INTO active_storage_blobs (key, filename, byte_size) VALUES
	('k1', 'beach.jpg', 100), ('k2', 'lunch.jpg', 200), ('k3', 'avatar.png', 50);
INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id) VALUES
	('image', 'Photo', 1, 1), ('image', 'Photo', 2, 2), ('avatar', 'User', 1, 3);
INSERT INTO schema_migrations VALUES ('20260101000000'), ('20260102000000');
INSERT INTO ar_internal_metadata VALUES ('environment', 'production', '2026-01-01', '2026-01-01');
ANALYZE;

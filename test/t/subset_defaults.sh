#!/usr/bin/env bash
# test/t/subset_defaults.sh: safe mode's default masks on real schemas
# (issue 17, item 5; doc/subset.md, Safe mode).
#
#  1. GitLab's and OpenStreetMap's structure files (../shared/data, see its
#     README; skipped with the reason where absent): every column the issue
#     lists as a miss is marked needs_mask_decision, with the default mask
#     its kind gets (fake data for names and companies, NULL for an IP
#     address, the known bcrypt digest for a password digest); the noise is
#     not marked (a project's name, a flag or a moment about a password, a
#     json column whose name says nothing).
#  2. Lago's misses and noise, as tables of their own (Lago's schema is not
#     in ../shared/data): api_keys.value, *.secrets, hmac_key, the tax id
#     are marked; invoice_display_name is not.
#  3. The digest is bcrypt's of "password" (pgcrypto's crypt(), where
#     pgcrypto is installed), and a catalog config exports as it is (no
#     undecided column in the Lago tables) with fake names, no original.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "${EXWIW_BIN:-}" ] && PATH=$EXWIW_BIN:$PATH
export PGDATABASE=postgres
failed=0
ok() { echo "ok: $*"; }
not_ok() { echo "not ok: $*"; failed=1; }
q() { PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 "$@"; }
digest='$2a$10$exwiwdevelopmentlogin.fqtuK2xi7vqWhNHJuarZevj6AcOPpyO'

# marks DB: "table.column<TAB>mask" of every marked column of the catalog
# config of DB's public schema (mask: the column entry without its name,
# marker and comment).
marks() {
	psql -X -At -F $'\t' -d "$1" -c "SELECT (t ->> 'name') || '.' || (c ->> 'name'), (c - 'name' - 'needs_mask_decision' - 'comment')::text
		FROM jsonb_array_elements(exwiw_config_from_catalog('public') -> 'tables') t, jsonb_array_elements(t -> 'columns') c
		WHERE c ? 'needs_mask_decision'"
}
# columns DB: every "table.column" of that config.
columns() {
	psql -X -At -d "$1" -c "SELECT (t ->> 'name') || '.' || (c ->> 'name')
		FROM jsonb_array_elements(exwiw_config_from_catalog('public') -> 'tables') t, jsonb_array_elements(t -> 'columns') c"
}
# expect FILE-OF-MARKS FILE-OF-COLUMNS WHAT COLUMN [MASK-PATTERN]: COLUMN
# exists, is marked, and its mask matches MASK-PATTERN (grep -E), if given.
expect() {
	local marks=$1 cols=$2 what=$3 col=$4 pat=${5:-}
	local mask
	if ! grep -qxF "$col" "$cols"; then
		not_ok "$what: no column $col in the schema"
	elif ! mask=$(grep -P "^\Q$col\E\t" "$marks" | cut -f2) || [ -z "$mask" ]; then
		not_ok "$what: $col is not marked"
	elif [ -n "$pat" ] && ! grep -qE -- "$pat" <<<"$mask"; then
		not_ok "$what: $col has mask $mask, not /$pat/"
	else
		ok "$what: $col marked${pat:+, mask $mask}"
	fi
}
# expect_plain FILE-OF-MARKS FILE-OF-COLUMNS WHAT COLUMN: exists, not marked.
expect_plain() {
	local marks=$1 cols=$2 what=$3 col=$4
	if ! grep -qxF "$col" "$cols"; then
		not_ok "$what: no column $col in the schema"
	elif grep -qP "^\Q$col\E\t" "$marks"; then
		not_ok "$what: $col is marked ($(grep -P "^\Q$col\E\t" "$marks" | cut -f2))"
	else
		ok "$what: $col is not marked"
	fi
}

fake_name='^\{"replace_with_fake_data": \{"seed": "id", "type": "name"\}\}$'
bcrypt="^\\{\"replace_with\": \"\\\$2a\\\$10\\\$exwiwdevelopmentlogin"
null_ip='^\{"raw_sql": "NULL"\}$'
work=$(mktemp -d /tmp/subset-defaults.XXXXXX)
trap 'rm -rf "$work"' EXIT

# 1. the real schemas
data=$root/../shared/data/real-schemas
load() { # load DB FILE: a fresh database with the structure file and exwiw
	q -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"
	zcat "$2" | q -d "$1" >/dev/null
	q -d "$1" -c "CREATE EXTENSION exwiw"
}
if [ ! -d "$data" ]; then
	echo "ok: real schemas skipped: $data is absent (a plain clone has no ../shared)"
else
	if [ "$(psql -X -At -c "SELECT count(*) FROM pg_available_extensions WHERE name IN ('btree_gist', 'pg_trgm')")" != 2 ]; then
		echo "ok: GitLab skipped: its structure needs btree_gist and pg_trgm (postgresql-contrib), which this server lacks"
	else
		load defaults_gitlab "$data/gitlab-structure.sql.gz"
		marks defaults_gitlab >"$work/gl.marks"
		columns defaults_gitlab >"$work/gl.cols"
		ok "GitLab: $(wc -l <"$work/gl.marks") of $(wc -l <"$work/gl.cols") columns marked"
		for c in ci_variables.encrypted_value ci_variables.value keys.key identities.extern_uid \
			user_details.linkedin user_details.twitter user_details.skype user_details.discord \
			user_details.mastodon user_details.bluesky user_details.github user_details.location \
			user_details.job_title user_details.bio user_details.website_url \
			users.otp_secret users.feed_token users.unconfirmed_email; do
			expect "$work/gl.marks" "$work/gl.cols" GitLab "$c"
		done
		expect "$work/gl.marks" "$work/gl.cols" GitLab users.name "$fake_name"
		expect "$work/gl.marks" "$work/gl.cols" GitLab users.first_name '"type": "first_name"'
		expect "$work/gl.marks" "$work/gl.cols" GitLab users.last_name '"type": "last_name"'
		expect "$work/gl.marks" "$work/gl.cols" GitLab user_details.organization '"type": "company"'
		expect "$work/gl.marks" "$work/gl.cols" GitLab users.encrypted_password "$bcrypt"
		expect "$work/gl.marks" "$work/gl.cols" GitLab users.current_sign_in_ip "$null_ip"
		expect "$work/gl.marks" "$work/gl.cols" GitLab users.email '@example.com'
		for c in projects.name namespaces.name users.password_automatically_set \
			users.reset_password_sent_at users.otp_required_for_login \
			customer_relations_organizations.name ci_variables.masked \
			keys.title merge_requests.description; do
			expect_plain "$work/gl.marks" "$work/gl.cols" GitLab "$c"
		done
		# json and jsonb: judged by name, not all marked
		psql -X -At -d defaults_gitlab -c "SELECT table_name || '.' || column_name FROM information_schema.columns WHERE table_schema = 'public' AND data_type IN ('json', 'jsonb')" >"$work/gl.json"
		marked_json=$(grep -cFf <(cut -f1 "$work/gl.marks") "$work/gl.json" || true)
		if [ "$marked_json" -gt 0 ] && [ "$marked_json" -lt "$(wc -l <"$work/gl.json")" ]; then
			ok "GitLab: $marked_json of $(wc -l <"$work/gl.json") json columns marked, by name"
		else
			not_ok "GitLab: $marked_json of $(wc -l <"$work/gl.json") json columns marked"
		fi
		expect "$work/gl.marks" "$work/gl.cols" GitLab application_settings.secrets_manager_settings '"replace_with": "\{\}"'
		q -c "DROP DATABASE defaults_gitlab"
	fi

	if [ "$(psql -X -At -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'btree_gist'")" != 1 ]; then
		echo "ok: OpenStreetMap skipped: its structure needs btree_gist (postgresql-contrib), which this server lacks"
	else
		load defaults_osm "$data/openstreetmap-structure.sql.gz"
		marks defaults_osm >"$work/osm.marks"
		columns defaults_osm >"$work/osm.cols"
		ok "OpenStreetMap: $(wc -l <"$work/osm.marks") of $(wc -l <"$work/osm.cols") columns marked"
		expect "$work/osm.marks" "$work/osm.cols" OpenStreetMap users.pass_crypt "$bcrypt"
		expect "$work/osm.marks" "$work/osm.cols" OpenStreetMap users.home_lat
		expect "$work/osm.marks" "$work/osm.cols" OpenStreetMap users.home_lon
		expect "$work/osm.marks" "$work/osm.cols" OpenStreetMap users.email '@example.com'
		expect "$work/osm.marks" "$work/osm.cols" OpenStreetMap users.creation_address "$null_ip"
		expect "$work/osm.marks" "$work/osm.cols" OpenStreetMap users.company '"type": "company"'
		expect "$work/osm.marks" "$work/osm.cols" OpenStreetMap users.description
		expect "$work/osm.marks" "$work/osm.cols" OpenStreetMap oauth_applications.secret
		for c in changesets.min_lat nodes.latitude users.terms_seen users.creation_time; do
			expect_plain "$work/osm.marks" "$work/osm.cols" OpenStreetMap "$c"
		done
		q -c "DROP DATABASE defaults_osm"
	fi
fi

# 2. Lago's misses and noise
q -c "DROP DATABASE IF EXISTS defaults_lago" -c "CREATE DATABASE defaults_lago"
q -d defaults_lago <<'SQL'
CREATE EXTENSION exwiw;
CREATE TABLE organizations (id int PRIMARY KEY, name text, hmac_key text, email text, tax_identification_number text);
CREATE TABLE api_keys (id int PRIMARY KEY, organization_id int REFERENCES organizations, value text);
CREATE TABLE integrations (id int PRIMARY KEY, organization_id int REFERENCES organizations, secrets text, settings jsonb);
CREATE TABLE customers (id int PRIMARY KEY, organization_id int REFERENCES organizations, name text,
	firstname text, lastname text, phone text, address_line1 text, city text, legal_name text,
	tax_identification_number text, display_name text);
CREATE TABLE charges (id int PRIMARY KEY, organization_id int REFERENCES organizations, invoice_display_name text);
CREATE TABLE add_ons (id int PRIMARY KEY, organization_id int REFERENCES organizations, name text, invoice_display_name text);
INSERT INTO organizations VALUES (1, 'Org', 'HMAC-ORIGINAL', 'org@original.test', 'TAX-ORIGINAL-1');
INSERT INTO api_keys VALUES (1, 1, 'APIKEY-ORIGINAL');
INSERT INTO integrations VALUES (1, 1, 'SECRETS-ORIGINAL', '{"a": 1}');
INSERT INTO customers VALUES (1, 1, 'Ada Original', 'Ada', 'Original', '+1-555-ORIGINAL',
	'1 Original Street', 'Originalville', 'Ada Original Ltd', 'TAX-ORIGINAL-2', 'Ada O.');
INSERT INTO charges VALUES (1, 1, 'Monthly fee');
INSERT INTO add_ons VALUES (1, 1, 'Setup', 'Setup fee');
SQL
marks defaults_lago >"$work/lago.marks"
columns defaults_lago >"$work/lago.cols"
expect "$work/lago.marks" "$work/lago.cols" Lago api_keys.value
expect "$work/lago.marks" "$work/lago.cols" Lago integrations.secrets
expect "$work/lago.marks" "$work/lago.cols" Lago organizations.hmac_key
expect "$work/lago.marks" "$work/lago.cols" Lago organizations.tax_identification_number
expect "$work/lago.marks" "$work/lago.cols" Lago customers.tax_identification_number
expect "$work/lago.marks" "$work/lago.cols" Lago customers.name "$fake_name"
expect "$work/lago.marks" "$work/lago.cols" Lago customers.firstname '"type": "first_name"'
expect "$work/lago.marks" "$work/lago.cols" Lago customers.lastname '"type": "last_name"'
expect "$work/lago.marks" "$work/lago.cols" Lago customers.phone '"type": "phone_number"'
expect "$work/lago.marks" "$work/lago.cols" Lago customers.address_line1 '"type": "address"'
expect "$work/lago.marks" "$work/lago.cols" Lago customers.city '"type": "city"'
expect "$work/lago.marks" "$work/lago.cols" Lago customers.legal_name "$fake_name"
expect "$work/lago.marks" "$work/lago.cols" Lago customers.display_name "$fake_name"
for c in charges.invoice_display_name add_ons.invoice_display_name add_ons.name organizations.name integrations.settings; do
	expect_plain "$work/lago.marks" "$work/lago.cols" Lago "$c"
done

# 3. the digest, and an export with the defaults as they are
if [ "$(psql -X -At -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'pgcrypto'")" = 1 ]; then
	q -d defaults_lago -c "CREATE EXTENSION pgcrypto"
	if [ "$(psql -X -At -d defaults_lago -c "SELECT crypt('password', '$digest') = '$digest', crypt('Password', '$digest') = '$digest'")" = "t|f" ]; then
		ok "the default digest is bcrypt's of \"password\" (pgcrypto's crypt)"
	else
		not_ok "the default digest does not check against \"password\""
	fi
else
	echo "ok: the digest check skipped: pgcrypto is not installed on this server"
fi
PGOPTIONS='-c client_min_messages=warning' psql -X -At -d defaults_lago -c "SELECT string_agg(chunk, E'\n') FROM exwiw_export('organizations', '{1}')" >"$work/lago.sql"
if grep -q ORIGINAL "$work/lago.sql" || grep -qi original "$work/lago.sql"; then
	not_ok "the default masks leave originals in the export: $(grep -io '[^ ]*original[^ ]*' "$work/lago.sql" | head -n 5 | tr '\n' ' ')"
elif ! grep -qF "$(psql -X -At -d defaults_lago -c "SELECT exwiw_fake('name', NULL, '1')")" "$work/lago.sql"; then
	not_ok "no fake name in the export"
else
	ok "the catalog's config exports the Lago tables as it is: fake names, no original value"
fi
q -c "DROP DATABASE defaults_lago"
exit $failed

#!/usr/bin/env bash
# test/t/subset_masks.sh: the masks of issue 21 through the exwiw command,
# end to end.  users.email is a key that orders.user_email references, both
# pseudonymized; users carries a partial, a noise, a generalize and a json
# mask.  Checks: two runs write the same bytes, another secret other values;
# the orders' pseudonyms are their users' (the files load with the foreign
# key enforced); no original value of a masked column and not the secret is
# in any file, in the client's output or in the server log (log_statement =
# all); without the secret the export is refused; an invalid json path is
# an error naming the key; exwiw mask preview shows original beside masked
# to a superuser and is refused, with the secret, to another role.
#
# The secret reaches the server as a connection option (PGOPTIONS), never
# in a statement.  The server log is $EXWIW_WORK/server.log (test/run's
# cluster); elsewhere its check is skipped.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
[ -n "${EXWIW_BIN:-}" ] && PATH=$EXWIW_BIN:$PATH
work=$(mktemp -d /tmp/subset-masks.XXXXXX)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT
failed=0
ok() { echo "ok: $*"; }
not_ok() { echo "not ok: $*"; failed=1; }

secret1='first secret of subset_masks.sh 8c1f'
secret2='second secret of subset_masks.sh 9d2e'
db=masks_src
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "DROP DATABASE IF EXISTS masks_dev" -c "CREATE DATABASE $db" -c "CREATE DATABASE masks_dev"
psql -X -q -v ON_ERROR_STOP=1 -d "$db" <<'SQL'
CREATE EXTENSION exwiw;
CREATE TABLE users (id int PRIMARY KEY, email text UNIQUE NOT NULL, name text,
	card text, salary int, born date, profile jsonb);
CREATE TABLE orders (id int PRIMARY KEY, user_id int NOT NULL REFERENCES users,
	user_email text REFERENCES users (email), total numeric(10, 2));
INSERT INTO users VALUES
	(1, 'origin.alice@corp.test', 'Origname Alice', '4111222233334444', 51234, '1981-04-13',
	 '{"contact": {"email": "origin.alice@corp.test", "phone": "+1-202-555-0199"}, "token": "origtoken-alice", "plan": "pro"}'),
	(2, 'origin.bob@corp.test', 'Origname Bob', '5500666677778888', 72345, '1990-11-02',
	 '{"token": "origtoken-bob", "plan": "free"}'),
	(3, 'origin.carol@corp.test', 'Origname Carol', NULL, NULL, NULL, NULL);
INSERT INTO orders VALUES (10, 1, 'origin.alice@corp.test', 12.34),
	(11, 1, 'origin.alice@corp.test', 56.78), (12, 2, 'origin.bob@corp.test', 90.12);
SQL
psql -X -q -d masks_dev -c "CREATE TABLE users (id int PRIMARY KEY, email text UNIQUE NOT NULL, name text, card text, salary int, born date, profile jsonb)" \
	-c "CREATE TABLE orders (id int PRIMARY KEY, user_id int NOT NULL REFERENCES users, user_email text REFERENCES users (email), total numeric(10, 2))"
cat >"$work/config.json" <<'JSON'
[{"name": "users", "primary_key": "id", "columns": [
	{"name": "id"},
	{"name": "email", "pseudonym": {"type": "email"}},
	{"name": "name", "pseudonym": {"type": "name", "from": "email"}},
	{"name": "card", "partial": {"keep_end": 4}},
	{"name": "salary", "noise": {"ratio": 0.1}},
	{"name": "born", "generalize": {"to": "month"}},
	{"name": "profile", "json": [{"path": "$.contact.email", "pseudonym": "email"},
		{"path": "$.contact.phone", "partial": {"keep_end": 2}}, {"path": "$.token", "delete": true}]}]},
 {"name": "orders", "primary_key": "id",
  "belongs_tos": [{"table_name": "users", "foreign_key": "user_id"}],
  "columns": [{"name": "id"}, {"name": "user_id"},
	{"name": "user_email", "pseudonym": {"type": "email"}},
	{"name": "total", "generalize": {"step": 10}}]}]
JSON
# the originals of the masked columns (the card's last four are kept)
cat >"$work/originals" <<'EOF2'
origin.alice
origin.bob
origin.carol
Origname
411122223333
550066667777
51234
72345
1981-04-13
1990-11-02
origtoken
202-555-01
12.34
56.78
90.12
EOF2
printf '%s\n%s\n' "$secret1" "$secret2" >"$work/secrets"

log=
if [ -n "${EXWIW_WORK:-}" ] && [ -r "$EXWIW_WORK/server.log" ]; then
	log=$EXWIW_WORK/server.log
	start=$(stat -c %s "$log")
fi
base="-c log_statement=all -c log_min_messages=debug1 -c log_min_error_statement=debug1"
run() { # run SECRET ARGS...: the exwiw command with that secret ("" for none)
	local s=$1
	shift
	if [ -n "$s" ]; then
		PGOPTIONS="$base -c exwiw.mask_secret='${s// /\\ }'" exwiw --dbname="$db" "$@"
	else
		PGOPTIONS="$base" exwiw --dbname="$db" "$@"
	fi
}

run "$secret1" --target-table=users --ids=1,2,3 --schema-dir="$work/config.json" -o "$work/out1" --quiet >"$work/client.out" 2>&1 ||
	{ not_ok "export: $(cat "$work/client.out")"; }
run "$secret1" --target-table=users --ids=1,2,3 --schema-dir="$work/config.json" -o "$work/out2" --quiet >>"$work/client.out" 2>&1 ||
	{ not_ok "second export: $(cat "$work/client.out")"; }
run "$secret2" --target-table=users --ids=1,2,3 --schema-dir="$work/config.json" -o "$work/out3" --quiet >>"$work/client.out" 2>&1 ||
	{ not_ok "export with another secret: $(cat "$work/client.out")"; }
if [ -f "$work/out1/insert-001-users.sql" ] && diff -r -x manifest.json "$work/out1" "$work/out2" >/dev/null; then
	ok "two runs with one secret write the same bytes"
else
	not_ok "two runs differ, or wrote nothing"
fi
if ! cmp -s "$work/out1/insert-001-users.sql" "$work/out3/insert-001-users.sql"; then
	ok "another secret gives other values"
else
	not_ok "another secret gives the same file"
fi
alice=$(PGOPTIONS="-c exwiw.mask_secret='${secret1// /\\ }'" psql -X -At -d "$db" -c "SELECT exwiw_mask_pseudonym('origin.alice@corp.test', 'email')")
if [ "$(grep -cF "$alice" "$work/out1/insert-001-users.sql")" -ge 1 ] &&
	[ "$(grep -oF "$alice" "$work/out1/insert-002-orders.sql" | wc -l)" -eq 2 ]; then
	ok "the orders' user_email is their user's pseudonym ($alice)"
else
	not_ok "the pseudonyms of users.email and orders.user_email differ"
fi
if for f in "$work"/out1/insert-*.sql; do psql -X -q -v ON_ERROR_STOP=1 -d masks_dev -f "$f" >/dev/null || exit 1; done &&
	[ "$(psql -X -At -d masks_dev -c "SELECT count(*) FROM orders o JOIN users u ON u.email = o.user_email")" = 3 ]; then
	ok "the files load with the foreign keys enforced, and the orders join their users by the pseudonym"
else
	not_ok "the files do not load, or the orders do not join"
fi
if grep -rF -f "$work/originals" "$work/out1" "$work/out3" "$work/client.out"; then
	not_ok "an original value is in a file or the client's output (above)"
else
	ok "no original value in any file or in the client's output"
fi
if grep -rF -f "$work/secrets" "$work/out1" "$work/out3" "$work/client.out"; then
	not_ok "the secret is in a file or the client's output"
else
	ok "the secret is in no file and not in the client's output"
fi

# without the secret: refused, before anything is written
if run "" --target-table=users --ids=1 --schema-dir="$work/config.json" -o "$work/out4" --quiet >"$work/nosecret.out" 2>&1; then
	not_ok "the export ran without a secret"
elif grep -q 'exwiw.mask_secret is not set' "$work/nosecret.out" && [ ! -e "$work/out4" ]; then
	ok "without the secret the export is refused: $(grep -m1 'ERROR\|error' "$work/nosecret.out")"
else
	not_ok "without the secret: $(cat "$work/nosecret.out")"
fi

# an invalid json path: an error that names the key
sed 's/\$\.token/$.tok..en/' "$work/config.json" >"$work/bad.json"
if run "$secret1" --target-table=users --ids=1 --schema-dir="$work/bad.json" -o "$work/out5" --quiet >"$work/bad.out" 2>&1; then
	not_ok "an invalid json path was accepted"
elif grep -q 'columns\[6\].json\[2\].path' "$work/bad.out"; then
	ok "an invalid json path is an error naming columns[6].json[2].path"
else
	not_ok "invalid json path: $(cat "$work/bad.out")"
fi

# the preview: a superuser sees both; another role is refused
run "$secret1" mask preview --table=users --rows=2 --schema-dir="$work/config.json" >"$work/preview.out" 2>&1 || true
if grep -q '^row  *column  *original  *masked' "$work/preview.out" &&
	grep -q "origin.alice@corp.test *$alice" "$work/preview.out" &&
	grep -q 'card  *4111222233334444  *\*\*\*\*\*\*\*\*\*\*\*\*4444' "$work/preview.out"; then
	ok "exwiw mask preview: original beside masked"
else
	not_ok "exwiw mask preview: $(cat "$work/preview.out")"
fi
psql -X -q -d "$db" -c "DROP ROLE IF EXISTS masks_dev_user" -c "CREATE ROLE masks_dev_user LOGIN" \
	-c "GRANT SELECT ON ALL TABLES IN SCHEMA public TO masks_dev_user"
# a role that is not superuser: its setting of the secret does not take
# (the placeholder it set at connection is refused when exwiw loads)
PGOPTIONS="-c exwiw.mask_secret='${secret1// /\\ }'" psql -X -d "$db" -U masks_dev_user \
	-c "SELECT exwiw_mask_pseudonym('x', 'email')" >"$work/setsecret.out" 2>&1 || true
if grep -q 'exwiw.mask_secret is not set' "$work/setsecret.out"; then
	ok "another role may not set the secret: $(grep -m1 'WARNING\|ERROR' "$work/setsecret.out")"
else
	not_ok "another role may set the secret: $(cat "$work/setsecret.out")"
fi
if PGUSER=masks_dev_user exwiw --dbname="$db" mask preview --table=users --schema-dir="$work/config.json" >"$work/preview2.out" 2>&1; then
	not_ok "another role may preview: $(cat "$work/preview2.out")"
elif grep -q 'permission denied to preview masks\|exwiw.mask_secret is not set' "$work/preview2.out" &&
	! grep -qF -f "$work/originals" "$work/preview2.out"; then
	ok "another role may not preview: $(grep -m1 'error' "$work/preview2.out")"
else
	not_ok "another role's preview: $(cat "$work/preview2.out")"
fi
# once exwiw is loaded in the session (shared_preload_libraries does it for
# every session: see doc/subset.md), the setting is hidden from the role
psql -X -q -d "$db" -c "ALTER ROLE masks_dev_user SET exwiw.mask_secret = 'set for the role by a superuser 1'" >"$work/show.out" 2>&1 || true
psql -X -At -d "$db" -U masks_dev_user -c "SELECT exwiw_mask_partial('a')" -c "SHOW exwiw.mask_secret" \
	-c "SELECT count(*) FROM pg_settings WHERE name = 'exwiw.mask_secret'" >>"$work/show.out" 2>&1 || true
if grep -qE 'must be superuser|permission denied to examine' "$work/show.out" && ! grep -q 'set for the role' "$work/show.out"; then
	ok "another role may not read the secret"
else
	not_ok "another role reads the secret: $(cat "$work/show.out")"
fi

if [ -n "$log" ]; then
	# once every statement above is in it (a mark logged after them), the
	# whole log since the first, without each line's prefix
	# (log_line_prefix '%m [%p] '): a timestamp such as 01:21:56.782 holds
	# the original 56.78
	if ! subset_log_settle "$log" "$start" -d "$db" >"$work/log.before-mark"; then
		not_ok "the server log does not show a mark logged after the statements"
	fi
	tail -c +$((start + 1)) "$log" |
		sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:.]+ [A-Za-z0-9+-]+ \[[0-9]+\] //' >"$work/log"
	if grep -q 'exwiw_export' "$work/log.before-mark"; then
		if grep -F -f "$work/secrets" "$work/log"; then
			not_ok "the secret is in the server log (above)"
		else
			ok "the secret is not in the server log (log_statement = all)"
		fi
		if grep -F -f "$work/originals" "$work/log" | grep -v 'exwiw_mask_pseudonym(.origin.alice@corp.test' | grep -v 'INSERT INTO users VALUES'; then
			not_ok "an original value is in the server log (above)"
		else
			ok "no original value in the server log"
		fi
	else
		not_ok "the server log does not show the statements"
	fi
else
	echo "skip: the server log is not known here (EXWIW_WORK unset: run through test/run)"
fi

psql -X -q -d postgres -c "DROP DATABASE $db" -c "DROP DATABASE masks_dev" -c "DROP ROLE masks_dev_user"
[ $failed -eq 0 ]

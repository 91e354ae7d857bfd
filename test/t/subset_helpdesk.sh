#!/usr/bin/env bash
# test/t/subset_helpdesk.sh: the relations only a Rails app's models know,
# offered from evidence and accepted by a person (issue 36, item 6), on a
# support-desk SaaS of 88 tables (test/subset/helpdesk.sql: accounts as
# tenants, users through account_users, assignee_id, author_id, sender_id,
# closed_by_id, parent_category_id with no foreign key, two dozen
# polymorphic pairs, join tables without a primary key), three accounts of
# data.  On a cluster of its own (the main test port + 8) that preloads
# pg_stat_statements.
#
#  1. exwiw schema generate: every key-like column that no foreign key or
#     name covers gets a proposal with its evidence (the data); the
#     catalog's config says pg_stat_statements is not installed.  schema check
#     exits 1 and lists them; the export refuses, naming them.
#  2. A person accepts every proposal but one (account_users.inviter_id,
#     whose three values fit accounts better than users: rejected with
#     "ignore": true) and writes that one relation by hand.  generate run
#     again keeps every decision; schema check exits 0.
#  3. The export of account 1, as the exwiw command writes it, loads as a
#     non-superuser into an empty copy of the schema with every constraint
#     enforced, and its rows are exactly account 1's, computed here in SQL
#     from the data (tenant columns, memberships, polymorphic arms, the
#     global rows the tenant's rows reference): 0 missing, 0 other.
#  4. With pg_stat_statements installed and the application's joins run,
#     generate into a new directory offers inviter_id -> users from the
#     queries, with the count of calls.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/lib.sh"
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
if [ -z "${EXWIW_BIN:-}" ]; then
	echo "skip: subset_helpdesk: run it from test/run (EXWIW_BIN is not set)"
	exit 77
fi
if [ ! -f "$("$EXWIW_BIN/pg_config" --pkglibdir)/pg_stat_statements.so" ]; then
	echo "skip: subset_helpdesk: pg_stat_statements is not installed"
	exit 77
fi
PATH=$EXWIW_BIN:$PATH
port=$((${PGPORT:-$(exwiw_port)} + 8))
work=$(mktemp -d /tmp/subset-helpdesk.XXXXXX)
chmod 755 "$work"
fail=0

exwiw_initdb "$work/cluster" "$port"
echo "shared_preload_libraries = 'pg_stat_statements'" >>"$work/cluster/data/postgresql.conf"
exwiw_as_server_user "$EXWIW_BIN/pg_ctl" -D "$work/cluster/data" -l "$work/cluster/server.log" -w -t 60 start >/dev/null ||
	{ cat "$work/cluster/server.log"; exit 1; }
export PGHOST=$work/cluster/sock PGPORT=$port PGUSER=postgres PGDATABASE=postgres
EXWIW_CLUSTER_DIR=$work/cluster
trap 'exwiw_cluster_stop; [ -n "${EXWIW_KEEP:-}" ] || rm -rf "$work"' EXIT

subset_make_databases "$root" helpdesk "$root/test/subset/helpdesk.sql"
psql -X -q -v ON_ERROR_STOP=1 -d helpdesk_src -c "SELECT desk.generate(3)" >/dev/null
pg_dump --schema-only -n desk -d helpdesk_src >"$work/schema.sql"
src() { psql -X -q -v ON_ERROR_STOP=1 -d helpdesk_src "$@"; }
app() { PGDATABASE=helpdesk_src PGOPTIONS='-c search_path=desk,public' "$@"; }

# 1. generate: proposals with their evidence, and what waits for them
cd "$work"
app exwiw schema generate --from-db --schema-dir=schema >generate.log 2>&1 || { cat generate.log; exit 1; }
nprop=$(cat schema/*.json | grep -c '"proposed": true' || true)
ntables=$(ls schema | wc -l)
if [ "$(wc -l <generate.log)" = 1 ] &&
	src -At -c "SELECT exwiw_config_from_catalog('desk')->>'comment'" | grep -q '^pg_stat_statements is not installed'; then
	ok "pg_stat_statements not installed: generate is silent, the catalog's config says so in its comment"
else
	not_ok "pg_stat_statements not installed: generate said more than one line, or the catalog's comment does not say so:"
	cat generate.log
fi
# the relations only the models know, each offered with the data's evidence
for want in 'tickets assignee_id users' 'tickets closed_by_id users' 'conversations assignee_id users' \
	'comments author_id users' 'articles author_id users' 'macros created_by_id users' \
	'categories parent_category_id categories' 'ticket_relations related_ticket_id tickets' \
	'tickets priority_id ticket_priorities' 'articles associated_article_id articles'; do
	set -- $want
	if grep -A3 "\"foreign_key\": \"$2\"" "schema/$1.json" | grep -q "\"table_name\": \"$3\"" &&
		grep -A3 "\"foreign_key\": \"$2\"" "schema/$1.json" | grep -q '"evidence": "all [0-9]* non-null values of '"$1.$2"; then
		ok "proposed with the data's evidence: $1.$2 -> $3"
	else
		not_ok "no proposal $1.$2 -> $3:"
		grep -A4 "\"foreign_key\": \"$2\"" "schema/$1.json" || true
	fi
done
echo "# $ntables tables, $nprop proposals"
rc=0
app exwiw schema check --from-db --schema-dir=schema >check.json 2>check.err || rc=$?
if [ "$rc" = 1 ] && grep -q '"tickets.assignee_id -> users"' check.json; then
	ok "schema check exits 1 and lists the proposals"
else
	not_ok "schema check exited $rc:"
	cat check.json check.err
fi
rc=0
app exwiw -o refused --quiet --insert-only --schema-dir=schema --target-table=accounts --ids=1 >refused.log 2>&1 || rc=$?
if [ "$rc" != 0 ] && grep -q 'Relations proposed from evidence: .*tickets.assignee_id -> users' refused.log; then
	ok "the export refuses the undecided proposals, naming them"
else
	not_ok "the export did not refuse the proposals (exit $rc):"
	head -n 20 refused.log
fi

# 2. the person's round: reject one proposal and write it by hand, accept
# the others
if ! grep -A2 '"foreign_key": "inviter_id"' schema/account_users.json | grep -q '"table_name": "accounts"'; then
	not_ok "account_users.inviter_id was not proposed as accounts (the test's rejected proposal)"
fi
sed -i 's/"proposed": true,/"ignore": true,/' schema/account_users.json
sed -i 's/"belongs_tos": \[/"belongs_tos": [ {"foreign_key": "inviter_id", "table_name": "users", "comment": "by hand"},/' schema/account_users.json
sed -i '/"proposed": true,/d' schema/*.json
nhand=$(cat schema/*.json | grep -c '"comment": "by hand"' || true)
app exwiw schema generate --from-db --schema-dir=schema >generate2.log 2>&1 || { cat generate2.log; exit 1; }
if [ "$(cat schema/*.json | grep -c '"proposed": true' || true)" = 0 ] &&
	grep -q '"ignore": true' schema/account_users.json && grep -q '"comment": "by hand"' schema/account_users.json; then
	ok "generate run again keeps the decisions: no proposal comes back, the rejected one stays rejected"
else
	not_ok "generate run again did not keep the decisions:"
	grep -B2 -A3 '"proposed": true' schema/*.json | head -n 20
fi
rc=0
app exwiw schema check --from-db --schema-dir=schema >check2.json 2>check2.err || rc=$?
if [ "$rc" = 0 ]; then
	ok "schema check exits 0 once every proposal is decided, $nhand relation written by hand"
else
	not_ok "schema check exited $rc after the decisions:"
	cat check2.json check2.err
fi
if [ "$nhand" -le 3 ]; then
	ok "$nhand relation(s) written by hand (at most 3)"
else
	not_ok "$nhand relations written by hand"
fi

# 3. the export of account 1 loads as a non-superuser, and holds exactly
# account 1's rows
subset_fresh_dst "$work/schema.sql" helpdesk desk
if app exwiw -o out --quiet --insert-only --schema-dir=schema --target-table=accounts --ids=1 >export.log 2>&1 &&
	mv out/manifest.json . &&
	PGOPTIONS="-c search_path=desk,public" subset_load_files out -U helpdesk_loader -d helpdesk_dst 2>load.log; then
	ok "the export of account 1 ($(ls out | wc -l) files) loads as a non-superuser with every constraint enforced"
else
	not_ok "the export or its load failed:"
	cat export.log load.log | head -n 20
fi
# every table's keys: the primary key, or the whole row (join tables)
keys=$(src -At -c "SELECT string_agg(format('SELECT %L AS tab, %s AS key FROM desk.%I x', c.relname,
		COALESCE((SELECT format('x.%I::text', a.attname) FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
			WHERE i.indrelid = c.oid AND i.indisprimary AND i.indnatts = 1), 'x::text'), c.relname), ' UNION ALL ' ORDER BY c.relname)
	FROM pg_class c WHERE c.relnamespace = 'desk'::regnamespace AND c.relkind = 'r'")
psql -X -q -v ON_ERROR_STOP=1 -d helpdesk_dst -c "COPY ($keys) TO STDOUT" >got.tsv
src <<SQL
CREATE TABLE public.got (tab text, key text);
\copy public.got FROM '$work/got.tsv'
CREATE TABLE public.want (tab text, key text);
SQL
# account 1's rows, from the data: the tables with an account column; the
# users of its memberships and what hangs off them; the children of its
# rows by their declared or named keys; the rows any polymorphic arm ties
# to one of its rows; the global rows its rows reference; the global
# tables no row references, whole
src <<'SQL' >/dev/null
SET search_path = desk, public;
CREATE FUNCTION public.want_add(tab text, cond text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE k text;
BEGIN
	SELECT COALESCE((SELECT format('x.%I::text', a.attname) FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
		WHERE i.indrelid = format('desk.%I', tab)::regclass AND i.indisprimary AND i.indnatts = 1), 'x::text') INTO k;
	EXECUTE format('INSERT INTO public.want SELECT %L, %s FROM desk.%I x WHERE (%s) AND NOT EXISTS (SELECT FROM public.want w WHERE w.tab = %L AND w.key = %s)',
		tab, k, tab, cond, tab, k);
END $$;
CREATE FUNCTION public.mine(tab text, id bigint) RETURNS boolean LANGUAGE sql STABLE AS
	$$ SELECT EXISTS (SELECT FROM public.want w WHERE w.tab = $1 AND w.key = $2::text) $$;
SELECT want_add('accounts', 'x.id = 1');
SELECT want_add(c.relname, 'x.account_id = 1') FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'account_id'
	WHERE c.relnamespace = 'desk'::regnamespace AND c.relkind = 'r' ORDER BY c.relname;
SELECT want_add('users', 'public.mine(''account_users'', (SELECT au.id FROM desk.account_users au WHERE au.user_id = x.id))');
SELECT want_add(t, format('public.mine(%L, x.%I)', p, c)) FROM (VALUES
	('user_preferences', 'users', 'user_id'), ('user_devices', 'users', 'user_id'), ('team_members', 'teams', 'team_id'),
	('inbox_members', 'inboxes', 'inbox_id'), ('conversation_participants', 'conversations', 'conversation_id'),
	('ticket_labels', 'tickets', 'ticket_id'), ('ticket_relations', 'tickets', 'ticket_id'), ('ticket_events', 'tickets', 'ticket_id'),
	('article_views', 'articles', 'article_id'), ('company_domains', 'companies', 'company_id'), ('contact_addresses', 'contacts', 'contact_id'),
	('contact_inboxes', 'contacts', 'contact_id'), ('campaign_deliveries', 'campaigns', 'campaign_id'), ('macro_actions', 'macros', 'macro_id'),
	('automation_conditions', 'automation_rules', 'automation_rule_id'), ('automation_actions', 'automation_rules', 'automation_rule_id'),
	('survey_questions', 'surveys', 'survey_id'), ('survey_answers', 'tickets', 'ticket_id'),
	('custom_attribute_values', 'custom_attribute_definitions', 'custom_attribute_definition_id'),
	('oauth_applications', 'accounts', 'owner_id'), ('oauth_access_tokens', 'oauth_applications', 'application_id')) v(t, p, c);
-- polymorphic arms, twice: comments and notes are arms' parents too
CREATE FUNCTION public.class_table(cls text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE cls WHEN 'Company' THEN 'companies' WHEN 'AgentBot' THEN 'agent_bots' ELSE lower(cls) || 's' END $$;
SELECT want_add(t, format('public.mine(public.class_table(x.%I), x.%I)', ty, id)) FROM generate_series(1, 2), (VALUES
	('taggings', 'taggable_type', 'taggable_id'), ('comments', 'commentable_type', 'commentable_id'),
	('audits', 'auditable_type', 'auditable_id'), ('audits', 'associated_type', 'associated_id'),
	('reactions', 'reactable_type', 'reactable_id'), ('activities', 'trackable_type', 'trackable_id'),
	('watchers', 'watchable_type', 'watchable_id'), ('mentions', 'mentionable_type', 'mentionable_id'),
	('subscriptions', 'subscribable_type', 'subscribable_id'), ('notes', 'notable_type', 'notable_id'),
	('bookmarks', 'bookmarkable_type', 'bookmarkable_id'), ('pins', 'pinnable_type', 'pinnable_id'),
	('votes', 'votable_type', 'votable_id'), ('api_access_tokens', 'owner_type', 'owner_id'),
	('phone_numbers', 'callable_type', 'callable_id'), ('active_storage_attachments', 'record_type', 'record_id')) v(t, ty, id);
-- global rows the tenant's rows reference, and whole global tables
SELECT want_add('plans', 'x.id IN (SELECT plan_id FROM desk.accounts WHERE id = 1)');
SELECT want_add('countries', 'x.id IN (SELECT a.country_id FROM desk.contact_addresses a WHERE public.mine(''contact_addresses'', a.id))');
SELECT want_add('ticket_priorities', 'x.id IN (SELECT t.priority_id FROM desk.tickets t WHERE t.account_id = 1)');
SELECT want_add('tags', 'x.id IN (SELECT g.tag_id FROM desk.taggings g WHERE public.mine(''taggings'', g.id))');
SELECT want_add('active_storage_blobs', 'x.id IN (SELECT s.blob_id FROM desk.active_storage_attachments s WHERE public.mine(''active_storage_attachments'', s.id))');
SELECT want_add('active_storage_variant_records', 'public.mine(''active_storage_blobs'', x.blob_id)');
SELECT want_add(t, 'true') FROM unnest(ARRAY['flipper_features', 'flipper_gates', 'schema_migrations', 'ar_internal_metadata']) t;
SQL
src -At >diff.txt <<'SQL'
SELECT 'missing', tab, count(*) FROM (SELECT * FROM public.want EXCEPT SELECT * FROM public.got) d GROUP BY tab
UNION ALL SELECT 'other', tab, count(*) FROM (SELECT * FROM public.got EXCEPT SELECT * FROM public.want) d GROUP BY tab
ORDER BY 1, 2;
SQL
nwant=$(src -At -c "SELECT count(*) FROM public.want")
nwtab=$(src -At -c "SELECT count(DISTINCT tab) FROM public.want")
if [ ! -s diff.txt ] && [ "$nwtab" -ge 80 ]; then
	ok "account 1: 0 rows missing, 0 rows of other accounts ($nwant rows of $nwtab tables, computed from the data)"
else
	not_ok "account 1's export differs from its rows (kind|table|rows):"
	cat diff.txt
fi

# 4. the joins the application runs: pg_stat_statements installed, the
# application's queries run, a generate into a new directory offers the
# relation the data fit wrong
src -c "CREATE EXTENSION pg_stat_statements" -c "SELECT pg_stat_statements_reset()" >/dev/null
for i in 1 2 3; do
	src >/dev/null <<SQL
SET search_path = desk, public;
SELECT au.id, inviter.name FROM account_users au JOIN users inviter ON inviter.id = au.inviter_id WHERE au.account_id = $i;
SELECT t.subject, u.name FROM tickets t LEFT JOIN users u ON u.id = t.assignee_id WHERE t.account_id = $i AND t.status = 0;
SELECT m.content FROM messages m, conversations c WHERE c.id = m.conversation_id AND c.account_id = $i;
SQL
done
app exwiw schema generate --from-db --schema-dir=schema-q >generate3.log 2>&1 || { cat generate3.log; exit 1; }
if grep -A3 '"foreign_key": "inviter_id"' schema-q/account_users.json | grep -q '"table_name": "users"' &&
	grep -A3 '"foreign_key": "inviter_id"' schema-q/account_users.json | grep -q 'account_users.inviter_id = users.id joins tables in 3 calls of 1 query (pg_stat_statements); the data alone would point elsewhere'; then
	ok "pg_stat_statements: account_users.inviter_id -> users offered from the application's joins (3 calls), over the data's fit"
else
	not_ok "pg_stat_statements: no proposal inviter_id -> users from the queries:"
	grep -A4 '"foreign_key": "inviter_id"' schema-q/account_users.json
	cat generate3.log
fi
if grep -A3 '"foreign_key": "assignee_id"' schema-q/tickets.json | grep -q 'keys of users.id.*; tickets.assignee_id = users.id joins tables in 3 calls of 1 query (pg_stat_statements)'; then
	ok "pg_stat_statements: tickets.assignee_id -> users with both evidences, the data's and the queries'"
else
	not_ok "pg_stat_statements: tickets.assignee_id lacks one of its evidences:"
	grep -A4 '"foreign_key": "assignee_id"' schema-q/tickets.json
fi

exwiw_check_server "$work/cluster" || fail=1
exit $fail

-- test/subset/helpdesk.sql: a support-desk SaaS as a Rails app keeps it
-- (schema "desk", 90 tables), for the relations only its models know
-- (test/t/subset_helpdesk.sh).  Accounts are the tenants; users have no
-- account column, they belong to accounts through account_users; tickets,
-- conversations and messages carry assignee_id, author_id, sender_id,
-- closed_by_id and the like, which name no table (class_name: "User");
-- categories nest through parent_category_id; two dozen polymorphic pairs
-- (attachable, commentable, notifiable, taggable, auditable, trackable,
-- reactable, ...) hold class names; a handful of foreign keys are declared
-- (account_users, ActiveStorage, Doorkeeper, a few has_many :dependent);
-- join tables have no primary key.  Global lookups (plans, countries,
-- ticket_priorities, tags, flipper) belong to no account.
--
-- The data (desk.generate(accounts)): rows of every account interleaved in
-- the id sequences, every reference pointing into its own account, as the
-- application writes them; ANALYZEd, so that the planner's row counts are
-- exact.
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS desk CASCADE;
RESET client_min_messages;
CREATE SCHEMA desk;
SET search_path = desk, public;

-- global
CREATE TABLE plans (id bigserial PRIMARY KEY, name varchar NOT NULL, seats integer NOT NULL);
CREATE TABLE countries (id bigserial PRIMARY KEY, code varchar(2) NOT NULL UNIQUE, name varchar NOT NULL);
CREATE TABLE ticket_priorities (id bigserial PRIMARY KEY, name varchar NOT NULL, rank integer NOT NULL);
CREATE TABLE tags (id bigserial PRIMARY KEY, name varchar NOT NULL UNIQUE, taggings_count integer DEFAULT 0);
CREATE TABLE flipper_features (id bigserial PRIMARY KEY, key varchar NOT NULL UNIQUE, created_at timestamp(6) NOT NULL);
CREATE TABLE flipper_gates (id bigserial PRIMARY KEY, feature_key varchar NOT NULL, key varchar NOT NULL, value varchar);
CREATE TABLE schema_migrations (version varchar PRIMARY KEY);
CREATE TABLE ar_internal_metadata (key varchar PRIMARY KEY, value varchar, created_at timestamp(6) NOT NULL, updated_at timestamp(6) NOT NULL);

-- tenants and people
CREATE TABLE accounts (id bigserial PRIMARY KEY, name varchar NOT NULL, plan_id bigint, locale varchar DEFAULT 'en', created_at timestamp(6) NOT NULL);
CREATE TABLE users (id bigserial PRIMARY KEY, email varchar NOT NULL UNIQUE, name varchar NOT NULL, display_name varchar, created_at timestamp(6) NOT NULL);
CREATE TABLE account_users (id bigserial PRIMARY KEY, account_id bigint NOT NULL REFERENCES accounts, user_id bigint NOT NULL REFERENCES users, role integer NOT NULL DEFAULT 0, inviter_id bigint);
CREATE INDEX ON account_users (account_id);
CREATE TABLE user_preferences (id bigserial PRIMARY KEY, user_id bigint NOT NULL, theme varchar, digest boolean DEFAULT true);
CREATE TABLE user_devices (id bigserial PRIMARY KEY, user_id bigint NOT NULL, platform varchar, push_label varchar);
CREATE TABLE invitations (id bigserial PRIMARY KEY, account_id bigint NOT NULL, invited_by_id bigint NOT NULL, email varchar NOT NULL);
CREATE TABLE teams (id bigserial PRIMARY KEY, account_id bigint NOT NULL, name varchar NOT NULL);
CREATE TABLE team_members (team_id bigint NOT NULL, user_id bigint NOT NULL);
CREATE TABLE agent_bots (id bigserial PRIMARY KEY, account_id bigint NOT NULL, name varchar NOT NULL, outgoing_url varchar);
CREATE TABLE companies (id bigserial PRIMARY KEY, account_id bigint NOT NULL, name varchar NOT NULL, industry varchar);
CREATE TABLE company_domains (id bigserial PRIMARY KEY, company_id bigint NOT NULL, domain varchar NOT NULL);
CREATE TABLE contacts (id bigserial PRIMARY KEY, account_id bigint NOT NULL, company_id bigint, name varchar, email varchar, phone_number varchar);
CREATE INDEX ON contacts (account_id);
CREATE TABLE contact_addresses (id bigserial PRIMARY KEY, contact_id bigint NOT NULL, country_id bigint NOT NULL, city varchar);
CREATE TABLE phone_numbers (id bigserial PRIMARY KEY, callable_type varchar NOT NULL, callable_id bigint NOT NULL, number varchar NOT NULL);

-- channels and inboxes
CREATE TABLE channel_emails (id bigserial PRIMARY KEY, account_id bigint NOT NULL, email varchar NOT NULL, forward_to_email varchar);
CREATE TABLE channel_web_widgets (id bigserial PRIMARY KEY, account_id bigint NOT NULL, website_url varchar, widget_color varchar);
CREATE TABLE channel_apis (id bigserial PRIMARY KEY, account_id bigint NOT NULL, webhook_url varchar);
CREATE TABLE inboxes (id bigserial PRIMARY KEY, account_id bigint NOT NULL, channel_type varchar NOT NULL, channel_id bigint NOT NULL, name varchar NOT NULL);
CREATE TABLE inbox_members (inbox_id bigint NOT NULL, user_id bigint NOT NULL);
CREATE TABLE contact_inboxes (id bigserial PRIMARY KEY, contact_id bigint NOT NULL, inbox_id bigint NOT NULL, source_ref varchar NOT NULL);
CREATE TABLE working_hours (id bigserial PRIMARY KEY, account_id bigint NOT NULL, inbox_id bigint NOT NULL, day_of_week integer NOT NULL, open_hour integer, close_hour integer);
CREATE TABLE assignment_policies (id bigserial PRIMARY KEY, account_id bigint NOT NULL, inbox_id bigint NOT NULL, mode varchar NOT NULL);

-- the desk
CREATE TABLE categories (id bigserial PRIMARY KEY, account_id bigint NOT NULL, parent_category_id bigint, name varchar NOT NULL);
CREATE TABLE sla_policies (id bigserial PRIMARY KEY, account_id bigint NOT NULL, name varchar NOT NULL, first_response_minutes integer);
CREATE TABLE tickets (id bigserial PRIMARY KEY, account_id bigint NOT NULL, inbox_id bigint NOT NULL, contact_id bigint NOT NULL,
	assignee_id bigint, closed_by_id bigint, team_id bigint, priority_id bigint NOT NULL, sla_policy_id bigint, category_id bigint,
	subject varchar NOT NULL, status integer NOT NULL DEFAULT 0, created_at timestamp(6) NOT NULL);
CREATE INDEX ON tickets (account_id, status);
CREATE INDEX ON tickets (assignee_id);
CREATE TABLE ticket_events (id bigserial PRIMARY KEY, ticket_id bigint NOT NULL, actor_id bigint NOT NULL, kind varchar NOT NULL);
CREATE TABLE ticket_relations (ticket_id bigint NOT NULL, related_ticket_id bigint NOT NULL, kind varchar NOT NULL);
CREATE TABLE ticket_merges (id bigserial PRIMARY KEY, account_id bigint NOT NULL, source_ticket_id bigint NOT NULL, target_ticket_id bigint NOT NULL, merged_by_id bigint NOT NULL);
CREATE TABLE labels (id bigserial PRIMARY KEY, account_id bigint NOT NULL, title varchar NOT NULL, color varchar);
CREATE TABLE ticket_labels (ticket_id bigint NOT NULL, label_id bigint NOT NULL);
CREATE TABLE sla_events (id bigserial PRIMARY KEY, account_id bigint NOT NULL, ticket_id bigint NOT NULL, sla_policy_id bigint NOT NULL, event_type varchar);
CREATE TABLE escalations (id bigserial PRIMARY KEY, account_id bigint NOT NULL, ticket_id bigint NOT NULL, escalated_to_id bigint NOT NULL, escalated_by_id bigint NOT NULL, reason text);
CREATE TABLE approvals (id bigserial PRIMARY KEY, account_id bigint NOT NULL, ticket_id bigint NOT NULL, approver_id bigint NOT NULL, requested_by_id bigint NOT NULL, state varchar);
CREATE TABLE time_entries (id bigserial PRIMARY KEY, account_id bigint NOT NULL, ticket_id bigint NOT NULL, user_id bigint NOT NULL, approved_by_id bigint, minutes integer NOT NULL);
CREATE TABLE csat_survey_responses (id bigserial PRIMARY KEY, account_id bigint NOT NULL, ticket_id bigint NOT NULL, contact_id bigint NOT NULL, assigned_agent_id bigint, rating integer NOT NULL);
CREATE TABLE conversations (id bigserial PRIMARY KEY, account_id bigint NOT NULL, ticket_id bigint, inbox_id bigint NOT NULL, contact_id bigint NOT NULL, assignee_id bigint, uuid uuid NOT NULL DEFAULT gen_random_uuid());
CREATE TABLE conversation_participants (conversation_id bigint NOT NULL, user_id bigint NOT NULL);
CREATE TABLE messages (id bigserial PRIMARY KEY, account_id bigint NOT NULL, conversation_id bigint NOT NULL, sender_type varchar, sender_id bigint, content text, message_type integer NOT NULL DEFAULT 0);
CREATE INDEX ON messages (conversation_id);
CREATE TABLE reporting_events (id bigserial PRIMARY KEY, account_id bigint NOT NULL, conversation_id bigint, user_id bigint, inbox_id bigint, name varchar NOT NULL, value double precision);
CREATE TABLE campaigns (id bigserial PRIMARY KEY, account_id bigint NOT NULL, inbox_id bigint NOT NULL, sender_id bigint, title varchar NOT NULL);
CREATE TABLE campaign_deliveries (id bigserial PRIMARY KEY, campaign_id bigint NOT NULL, contact_id bigint NOT NULL, delivered_at timestamp(6));

-- tooling
CREATE TABLE macros (id bigserial PRIMARY KEY, account_id bigint NOT NULL, name varchar NOT NULL, created_by_id bigint NOT NULL, updated_by_id bigint NOT NULL);
CREATE TABLE macro_actions (id bigserial PRIMARY KEY, macro_id bigint NOT NULL REFERENCES macros, action_name varchar NOT NULL);
CREATE TABLE canned_responses (id bigserial PRIMARY KEY, account_id bigint NOT NULL, short_code varchar NOT NULL, content text);
CREATE TABLE automation_rules (id bigserial PRIMARY KEY, account_id bigint NOT NULL, name varchar NOT NULL, event_name varchar NOT NULL);
CREATE TABLE automation_conditions (id bigserial PRIMARY KEY, automation_rule_id bigint NOT NULL REFERENCES automation_rules, attribute_key varchar NOT NULL);
CREATE TABLE automation_actions (id bigserial PRIMARY KEY, automation_rule_id bigint NOT NULL REFERENCES automation_rules, action_name varchar NOT NULL);
CREATE TABLE custom_filters (id bigserial PRIMARY KEY, account_id bigint NOT NULL, user_id bigint NOT NULL, name varchar NOT NULL, query jsonb);
CREATE TABLE dashboard_apps (id bigserial PRIMARY KEY, account_id bigint NOT NULL, user_id bigint NOT NULL, title varchar NOT NULL);
CREATE TABLE custom_attribute_definitions (id bigserial PRIMARY KEY, account_id bigint NOT NULL, attribute_key varchar NOT NULL, attribute_model integer NOT NULL);
CREATE TABLE custom_attribute_values (id bigserial PRIMARY KEY, custom_attribute_definition_id bigint NOT NULL, customizable_type varchar NOT NULL, customizable_id bigint NOT NULL, value varchar);
CREATE TABLE webhooks (id bigserial PRIMARY KEY, account_id bigint NOT NULL, url varchar NOT NULL);
CREATE TABLE integrations_hooks (id bigserial PRIMARY KEY, account_id bigint NOT NULL, inbox_id bigint, app_name varchar NOT NULL);
CREATE TABLE business_holidays (id bigserial PRIMARY KEY, account_id bigint NOT NULL, day date NOT NULL);
CREATE TABLE surveys (id bigserial PRIMARY KEY, account_id bigint NOT NULL, title varchar NOT NULL);
CREATE TABLE survey_questions (id bigserial PRIMARY KEY, survey_id bigint NOT NULL REFERENCES surveys, prompt varchar NOT NULL);
CREATE TABLE survey_answers (id bigserial PRIMARY KEY, survey_question_id bigint NOT NULL, ticket_id bigint NOT NULL, contact_id bigint NOT NULL, answer varchar);

-- knowledge base
CREATE TABLE portals (id bigserial PRIMARY KEY, account_id bigint NOT NULL, slug varchar NOT NULL, name varchar NOT NULL);
CREATE TABLE articles (id bigserial PRIMARY KEY, account_id bigint NOT NULL, portal_id bigint NOT NULL, category_id bigint, author_id bigint NOT NULL, associated_article_id bigint, title varchar NOT NULL);
CREATE TABLE article_views (article_id bigint NOT NULL, contact_id bigint, viewed_at timestamp(6) NOT NULL);

-- polymorphic
CREATE TABLE taggings (id bigserial PRIMARY KEY, tag_id bigint NOT NULL, taggable_type varchar NOT NULL, taggable_id bigint NOT NULL, tagger_type varchar, tagger_id bigint, context varchar(128));
CREATE TABLE attachments (id bigserial PRIMARY KEY, account_id bigint NOT NULL, attachable_type varchar NOT NULL, attachable_id bigint NOT NULL, file_type integer, external_url varchar);
CREATE TABLE comments (id bigserial PRIMARY KEY, commentable_type varchar NOT NULL, commentable_id bigint NOT NULL, author_id bigint NOT NULL, body text NOT NULL);
CREATE TABLE notifications (id bigserial PRIMARY KEY, account_id bigint NOT NULL, user_id bigint NOT NULL, notifiable_type varchar NOT NULL, notifiable_id bigint NOT NULL, primary_actor_type varchar, primary_actor_id bigint, read_at timestamp(6));
CREATE TABLE audits (id bigserial PRIMARY KEY, auditable_type varchar, auditable_id bigint, associated_type varchar, associated_id bigint, user_id bigint, action varchar, audited_changes jsonb);
CREATE TABLE reactions (id bigserial PRIMARY KEY, reactable_type varchar NOT NULL, reactable_id bigint NOT NULL, user_id bigint NOT NULL, emoji varchar NOT NULL);
CREATE TABLE activities (id bigserial PRIMARY KEY, trackable_type varchar, trackable_id bigint, owner_type varchar, owner_id bigint, key varchar);
CREATE TABLE watchers (id bigserial PRIMARY KEY, watchable_type varchar NOT NULL, watchable_id bigint NOT NULL, user_id bigint NOT NULL);
CREATE TABLE mentions (id bigserial PRIMARY KEY, mentionable_type varchar NOT NULL, mentionable_id bigint NOT NULL, user_id bigint NOT NULL, mentioned_at timestamp(6) NOT NULL);
CREATE TABLE subscriptions (id bigserial PRIMARY KEY, subscribable_type varchar NOT NULL, subscribable_id bigint NOT NULL, contact_id bigint NOT NULL);
CREATE TABLE notes (id bigserial PRIMARY KEY, notable_type varchar NOT NULL, notable_id bigint NOT NULL, author_id bigint NOT NULL, content text);
CREATE TABLE bookmarks (id bigserial PRIMARY KEY, bookmarkable_type varchar NOT NULL, bookmarkable_id bigint NOT NULL, user_id bigint NOT NULL);
CREATE TABLE pins (id bigserial PRIMARY KEY, pinnable_type varchar NOT NULL, pinnable_id bigint NOT NULL, pinned_by_id bigint NOT NULL);
CREATE TABLE votes (id bigserial PRIMARY KEY, votable_type varchar NOT NULL, votable_id bigint NOT NULL, voter_type varchar NOT NULL, voter_id bigint NOT NULL, value integer NOT NULL);
CREATE TABLE api_access_tokens (id bigserial PRIMARY KEY, owner_type varchar NOT NULL, owner_id bigint NOT NULL, label varchar);

-- ActiveStorage and Doorkeeper, with their declared keys
CREATE TABLE active_storage_blobs (id bigserial PRIMARY KEY, key varchar NOT NULL UNIQUE, filename varchar NOT NULL, byte_size bigint NOT NULL, checksum varchar);
CREATE TABLE active_storage_attachments (id bigserial PRIMARY KEY, name varchar NOT NULL, record_type varchar NOT NULL, record_id bigint NOT NULL, blob_id bigint NOT NULL REFERENCES active_storage_blobs);
CREATE TABLE active_storage_variant_records (id bigserial PRIMARY KEY, blob_id bigint NOT NULL REFERENCES active_storage_blobs, variation_digest varchar NOT NULL);
CREATE TABLE oauth_applications (id bigserial PRIMARY KEY, owner_type varchar, owner_id bigint, name varchar NOT NULL, redirect_uri text);
CREATE TABLE oauth_access_tokens (id bigserial PRIMARY KEY, application_id bigint NOT NULL REFERENCES oauth_applications, resource_owner_id bigint, scopes varchar);

-- pick(table, account, k): the k-th (modulo their number) row of table
-- that belongs to account, in id order; users by their membership
CREATE FUNCTION pick(tab text, acct bigint, k bigint) RETURNS bigint LANGUAGE plpgsql SET search_path = desk, public AS $$
DECLARE
	r bigint;
BEGIN
	IF tab = 'users' THEN
		EXECUTE 'SELECT user_id FROM desk.account_users WHERE account_id = $1 ORDER BY user_id
			OFFSET ($2 * 7 + $2 / 3) % GREATEST((SELECT count(*) FROM desk.account_users WHERE account_id = $1), 1) LIMIT 1'
			INTO r USING acct, k;
	ELSE
		EXECUTE format('SELECT id FROM desk.%I WHERE account_id = $1 ORDER BY id
			OFFSET ($2 * 7 + $2 / 3) %% GREATEST((SELECT count(*) FROM desk.%I WHERE account_id = $1), 1) LIMIT 1', tab, tab)
			INTO r USING acct, k;
	END IF;
	RETURN r;
END $$;

-- generate(n): n accounts of data, their rows interleaved
CREATE FUNCTION generate(n integer) RETURNS void LANGUAGE plpgsql SET search_path = desk, public AS $$
BEGIN
	INSERT INTO plans (name, seats) VALUES ('free', 2), ('team', 10), ('business', 50);
	INSERT INTO countries (code, name) VALUES ('de', 'Germany'), ('fr', 'France'), ('jp', 'Japan'), ('br', 'Brazil'), ('ca', 'Canada'), ('in', 'India');
	INSERT INTO ticket_priorities (name, rank) VALUES ('low', 1), ('normal', 2), ('high', 3), ('urgent', 4);
	INSERT INTO tags (name) SELECT 'tag-' || g FROM generate_series(1, 12) g;
	INSERT INTO flipper_features (key, created_at) VALUES ('csat', '2024-01-01'), ('sla', '2024-01-01');
	INSERT INTO flipper_gates (feature_key, key, value) VALUES ('csat', 'boolean', 'true');
	INSERT INTO schema_migrations VALUES ('20240101000000'), ('20240201000000');
	INSERT INTO ar_internal_metadata VALUES ('environment', 'production', '2024-01-01', '2024-01-01');

	INSERT INTO accounts (name, plan_id, created_at) SELECT 'Account ' || g, 1 + g % 3, '2024-01-01'::timestamp + g * interval '1 day' FROM generate_series(1, n) g;
	-- 9 users an account, interleaved; every account's first user invited the others
	INSERT INTO users (email, name, display_name, created_at)
		SELECT 'agent' || g || '@desk.example', 'Agent ' || g, 'A' || g, '2024-01-02' FROM generate_series(1, 9 * n) g;
	INSERT INTO account_users (account_id, user_id, role) SELECT 1 + (u.id - 1) % n, u.id, CASE WHEN u.id <= n THEN 1 ELSE 0 END FROM users u ORDER BY u.id;
	UPDATE account_users au SET inviter_id = (SELECT min(o.user_id) FROM account_users o WHERE o.account_id = au.account_id) WHERE au.user_id > n;
	INSERT INTO user_preferences (user_id, theme) SELECT id, CASE WHEN id % 2 = 0 THEN 'dark' ELSE 'light' END FROM users ORDER BY id;
	INSERT INTO user_devices (user_id, platform, push_label) SELECT id, 'ios', 'device ' || id FROM users WHERE id % 3 = 0;
	INSERT INTO invitations (account_id, invited_by_id, email) SELECT 1 + g % n, pick('users', 1 + g % n, g), 'invitee' || g || '@example.com' FROM generate_series(1, 4 * n) g;
	INSERT INTO teams (account_id, name) SELECT 1 + g % n, 'Team ' || g FROM generate_series(1, 3 * n) g;
	INSERT INTO team_members SELECT t.id, pick('users', t.account_id, t.id + k) FROM teams t, generate_series(0, 2) k;
	INSERT INTO agent_bots (account_id, name) SELECT 1 + g % n, 'Bot ' || g FROM generate_series(1, 2 * n) g;
	INSERT INTO companies (account_id, name, industry) SELECT 1 + g % n, 'Company ' || g, 'retail' FROM generate_series(1, 4 * n) g;
	INSERT INTO company_domains (company_id, domain) SELECT id, 'c' || id || '.example' FROM companies;
	INSERT INTO contacts (account_id, company_id, name, email, phone_number)
		SELECT 1 + g % n, CASE WHEN g % 4 <> 0 THEN pick('companies', 1 + g % n, g) END, 'Contact ' || g, 'contact' || g || '@example.org', '+1555' || g FROM generate_series(1, 12 * n) g;
	INSERT INTO contact_addresses (contact_id, country_id, city) SELECT id, 1 + id % 6, 'City ' || id FROM contacts WHERE id % 2 = 1;
	INSERT INTO phone_numbers (callable_type, callable_id, number)
		SELECT 'Contact', id, '+1666' || id FROM contacts WHERE id % 3 = 0
		UNION ALL SELECT 'User', id, '+1777' || id FROM users WHERE id % 4 = 0;

	INSERT INTO channel_emails (account_id, email) SELECT g, 'support@a' || g || '.example' FROM generate_series(1, n) g;
	INSERT INTO channel_web_widgets (account_id, website_url) SELECT g, 'https://a' || g || '.example' FROM generate_series(1, n) g;
	INSERT INTO channel_apis (account_id, webhook_url) SELECT g, 'https://hooks.a' || g || '.example' FROM generate_series(1, n) g;
	INSERT INTO inboxes (account_id, channel_type, channel_id, name)
		SELECT c.account_id, x.t, c.id, x.t || ' ' || c.account_id FROM
		(SELECT 'Channel::Email' AS t, account_id, id FROM channel_emails
		 UNION ALL SELECT 'Channel::WebWidget', account_id, id FROM channel_web_widgets
		 UNION ALL SELECT 'Channel::Api', account_id, id FROM channel_apis) x JOIN LATERAL (SELECT x.account_id, x.id) c ON true
		ORDER BY c.id, x.t;
	INSERT INTO inbox_members SELECT i.id, pick('users', i.account_id, i.id + k) FROM inboxes i, generate_series(0, 1) k;
	INSERT INTO contact_inboxes (contact_id, inbox_id, source_ref) SELECT c.id, pick('inboxes', c.account_id, c.id), 'src-' || c.id FROM contacts c;
	INSERT INTO working_hours (account_id, inbox_id, day_of_week, open_hour, close_hour) SELECT i.account_id, i.id, d, 9, 17 FROM inboxes i, generate_series(1, 5) d;
	INSERT INTO assignment_policies (account_id, inbox_id, mode) SELECT account_id, id, 'round_robin' FROM inboxes;

	INSERT INTO categories (account_id, name) SELECT 1 + g % n, 'Root ' || g FROM generate_series(1, 2 * n) g;
	INSERT INTO categories (account_id, parent_category_id, name) SELECT c.account_id, c.id, 'Child of ' || c.id FROM categories c ORDER BY c.id;
	INSERT INTO categories (account_id, parent_category_id, name) SELECT c.account_id, c.id, 'Leaf of ' || c.id FROM categories c WHERE c.parent_category_id IS NOT NULL ORDER BY c.id;
	INSERT INTO sla_policies (account_id, name, first_response_minutes) SELECT 1 + g % n, 'SLA ' || g, 60 * g FROM generate_series(1, 2 * n) g;
	INSERT INTO tickets (account_id, inbox_id, contact_id, assignee_id, closed_by_id, team_id, priority_id, sla_policy_id, category_id, subject, status, created_at)
		SELECT a, pick('inboxes', a, g), pick('contacts', a, g), CASE WHEN g % 5 <> 0 THEN pick('users', a, g) END,
			CASE WHEN g % 3 = 0 THEN pick('users', a, g + 4) END, pick('teams', a, g), 1 + g % 4,
			CASE WHEN g % 2 = 0 THEN pick('sla_policies', a, g) END, pick('categories', a, g), 'Ticket ' || g, g % 3, '2024-03-01'::timestamp + g * interval '1 hour'
		FROM generate_series(1, 20 * n) g, LATERAL (SELECT 1 + g % n AS a) x;
	INSERT INTO ticket_events (ticket_id, actor_id, kind) SELECT t.id, pick('users', t.account_id, t.id + k), 'updated' FROM tickets t, generate_series(0, 1) k;
	INSERT INTO ticket_relations SELECT t.id, pick('tickets', t.account_id, t.id + 3), 'related' FROM tickets t WHERE t.id % 4 = 0;
	INSERT INTO ticket_merges (account_id, source_ticket_id, target_ticket_id, merged_by_id)
		SELECT t.account_id, t.id, pick('tickets', t.account_id, t.id + 1), pick('users', t.account_id, t.id) FROM tickets t WHERE t.id % 6 = 0;
	INSERT INTO labels (account_id, title) SELECT 1 + g % n, 'label ' || g FROM generate_series(1, 4 * n) g;
	INSERT INTO ticket_labels SELECT t.id, pick('labels', t.account_id, t.id) FROM tickets t WHERE t.id % 2 = 0;
	INSERT INTO sla_events (account_id, ticket_id, sla_policy_id, event_type) SELECT account_id, id, sla_policy_id, 'breach' FROM tickets WHERE sla_policy_id IS NOT NULL AND id % 4 = 0;
	INSERT INTO escalations (account_id, ticket_id, escalated_to_id, escalated_by_id, reason)
		SELECT account_id, id, pick('users', account_id, id + 2), pick('users', account_id, id + 5), 'slow' FROM tickets WHERE id % 3 = 1;
	INSERT INTO approvals (account_id, ticket_id, approver_id, requested_by_id, state)
		SELECT account_id, id, pick('users', account_id, id + 1), pick('users', account_id, id + 7), 'pending' FROM tickets WHERE id % 4 = 1;
	INSERT INTO time_entries (account_id, ticket_id, user_id, approved_by_id, minutes)
		SELECT account_id, id, pick('users', account_id, id), CASE WHEN id % 2 = 0 THEN pick('users', account_id, id + 3) END, 15 FROM tickets WHERE id % 2 = 0;
	INSERT INTO csat_survey_responses (account_id, ticket_id, contact_id, assigned_agent_id, rating)
		SELECT account_id, id, contact_id, assignee_id, 1 + id % 5 FROM tickets WHERE status = 2;
	INSERT INTO conversations (account_id, ticket_id, inbox_id, contact_id, assignee_id)
		SELECT account_id, id, inbox_id, contact_id, assignee_id FROM tickets ORDER BY id;
	INSERT INTO conversations (account_id, inbox_id, contact_id) SELECT 1 + g % n, pick('inboxes', 1 + g % n, g), pick('contacts', 1 + g % n, g) FROM generate_series(1, 3 * n) g;
	INSERT INTO conversation_participants SELECT c.id, pick('users', c.account_id, c.id) FROM conversations c;
	INSERT INTO messages (account_id, conversation_id, sender_type, sender_id, content, message_type)
		SELECT c.account_id, c.id, s.t, CASE s.t WHEN 'User' THEN pick('users', c.account_id, c.id + k)
			WHEN 'Contact' THEN c.contact_id WHEN 'AgentBot' THEN pick('agent_bots', c.account_id, c.id) END,
			'message ' || k || ' of ' || c.id, k % 2
		FROM conversations c, generate_series(0, 2) k, LATERAL (SELECT CASE k WHEN 0 THEN 'Contact' WHEN 1 THEN 'User' ELSE CASE WHEN c.id % 4 = 0 THEN 'AgentBot' END END AS t) s;
	INSERT INTO reporting_events (account_id, conversation_id, user_id, inbox_id, name, value)
		SELECT account_id, id, assignee_id, inbox_id, 'first_response', 42 FROM conversations;
	INSERT INTO campaigns (account_id, inbox_id, sender_id, title) SELECT 1 + g % n, pick('inboxes', 1 + g % n, g), pick('users', 1 + g % n, g), 'Campaign ' || g FROM generate_series(1, 2 * n) g;
	INSERT INTO campaign_deliveries (campaign_id, contact_id) SELECT c.id, pick('contacts', c.account_id, c.id + k) FROM campaigns c, generate_series(0, 2) k;

	INSERT INTO macros (account_id, name, created_by_id, updated_by_id) SELECT 1 + g % n, 'Macro ' || g, pick('users', 1 + g % n, g), pick('users', 1 + g % n, g + 1) FROM generate_series(1, 3 * n) g;
	INSERT INTO macro_actions (macro_id, action_name) SELECT id, 'assign_team' FROM macros;
	INSERT INTO canned_responses (account_id, short_code, content) SELECT 1 + g % n, 'hi' || g, 'Hello!' FROM generate_series(1, 3 * n) g;
	INSERT INTO automation_rules (account_id, name, event_name) SELECT 1 + g % n, 'Rule ' || g, 'ticket_created' FROM generate_series(1, 2 * n) g;
	INSERT INTO automation_conditions (automation_rule_id, attribute_key) SELECT id, 'status' FROM automation_rules;
	INSERT INTO automation_actions (automation_rule_id, action_name) SELECT id, 'send_email' FROM automation_rules;
	INSERT INTO custom_filters (account_id, user_id, name, query) SELECT a.account_id, a.user_id, 'Mine', '{"status": "open"}' FROM account_users a WHERE a.user_id % 2 = 0;
	INSERT INTO dashboard_apps (account_id, user_id, title) SELECT a.account_id, a.user_id, 'Dashboard' FROM account_users a WHERE a.user_id % 5 = 0;
	INSERT INTO custom_attribute_definitions (account_id, attribute_key, attribute_model) SELECT 1 + g % n, 'attr' || g, g % 2 FROM generate_series(1, 2 * n) g;
	INSERT INTO custom_attribute_values (custom_attribute_definition_id, customizable_type, customizable_id, value)
		SELECT pick('custom_attribute_definitions', t.account_id, t.id), 'Ticket', t.id, 'v' || t.id FROM tickets t WHERE t.id % 3 = 0
		UNION ALL SELECT pick('custom_attribute_definitions', c.account_id, c.id), 'Contact', c.id, 'v' || c.id FROM contacts c WHERE c.id % 3 = 0
		UNION ALL SELECT pick('custom_attribute_definitions', c.account_id, c.id), 'Company', c.id, 'v' || c.id FROM companies c WHERE c.id % 2 = 0;
	INSERT INTO webhooks (account_id, url) SELECT g, 'https://a' || g || '.example/hook' FROM generate_series(1, n) g;
	INSERT INTO integrations_hooks (account_id, inbox_id, app_name) SELECT account_id, id, 'slack' FROM inboxes WHERE id % 2 = 0;
	INSERT INTO business_holidays (account_id, day) SELECT 1 + g % n, '2024-12-24'::date + g FROM generate_series(1, 2 * n) g;
	INSERT INTO surveys (account_id, title) SELECT g, 'Survey ' || g FROM generate_series(1, n) g;
	INSERT INTO survey_questions (survey_id, prompt) SELECT s.id, 'Q' || k FROM surveys s, generate_series(1, 3) k;
	INSERT INTO survey_answers (survey_question_id, ticket_id, contact_id, answer)
		SELECT q.id, t.id, t.contact_id, 'yes' FROM tickets t JOIN surveys s ON s.account_id = t.account_id JOIN survey_questions q ON q.survey_id = s.id WHERE t.status = 2;

	INSERT INTO portals (account_id, slug, name) SELECT g, 'help-' || g, 'Help ' || g FROM generate_series(1, n) g;
	INSERT INTO articles (account_id, portal_id, category_id, author_id, title)
		SELECT 1 + g % n, pick('portals', 1 + g % n, g), pick('categories', 1 + g % n, g), pick('users', 1 + g % n, g + 2), 'Article ' || g FROM generate_series(1, 6 * n) g;
	UPDATE articles a SET associated_article_id = pick('articles', a.account_id, a.id + 1) WHERE a.id % 2 = 0;
	INSERT INTO article_views SELECT a.id, pick('contacts', a.account_id, a.id + k), '2024-04-01' FROM articles a, generate_series(0, 1) k;

	INSERT INTO taggings (tag_id, taggable_type, taggable_id, tagger_type, tagger_id, context)
		SELECT 1 + (t.id * 5) % 12, 'Ticket', t.id, 'User', pick('users', t.account_id, t.id), 'tags' FROM tickets t
		UNION ALL SELECT 1 + c.id % 12, 'Contact', c.id, NULL, NULL, 'labels' FROM contacts c WHERE c.id % 2 = 0
		UNION ALL SELECT 1 + (c.id * 7) % 12, 'Conversation', c.id, 'User', pick('users', c.account_id, c.id + 1), 'tags' FROM conversations c WHERE c.id % 3 = 0;
	INSERT INTO attachments (account_id, attachable_type, attachable_id, file_type)
		SELECT account_id, 'Message', id, 0 FROM messages WHERE id % 5 = 0
		UNION ALL SELECT account_id, 'Ticket', id, 1 FROM tickets WHERE id % 4 = 0
		UNION ALL SELECT account_id, 'Article', id, 1 FROM articles WHERE id % 2 = 1;
	INSERT INTO comments (commentable_type, commentable_id, author_id, body)
		SELECT 'Ticket', id, pick('users', account_id, id + 1), 'internal note' FROM tickets WHERE id % 2 = 1
		UNION ALL SELECT 'Article', id, pick('users', account_id, id), 'typo' FROM articles;
	INSERT INTO notifications (account_id, user_id, notifiable_type, notifiable_id, primary_actor_type, primary_actor_id)
		SELECT account_id, assignee_id, 'Ticket', id, 'Contact', contact_id FROM tickets WHERE assignee_id IS NOT NULL
		UNION ALL SELECT account_id, pick('users', account_id, id), 'Message', id, 'User', sender_id FROM messages WHERE sender_type = 'User' AND id % 4 = 0;
	INSERT INTO audits (auditable_type, auditable_id, associated_type, associated_id, user_id, action, audited_changes)
		SELECT 'Ticket', id, 'Account', account_id, assignee_id, 'update', '{"status": [0, 1]}'::jsonb FROM tickets WHERE id % 2 = 0
		UNION ALL SELECT 'Contact', id, 'Account', account_id, pick('users', account_id, id), 'create', '{}' FROM contacts WHERE id % 3 = 1
		UNION ALL SELECT 'User', user_id, 'Account', account_id, inviter_id, 'update', '{}' FROM account_users WHERE user_id % 2 = 1;
	INSERT INTO reactions (reactable_type, reactable_id, user_id, emoji)
		SELECT 'Message', id, pick('users', account_id, id), 'thumbsup' FROM messages WHERE id % 3 = 0
		UNION ALL SELECT 'Comment', c.id, pick('users', t.account_id, c.id), 'eyes' FROM comments c JOIN tickets t ON c.commentable_type = 'Ticket' AND t.id = c.commentable_id;
	INSERT INTO activities (trackable_type, trackable_id, owner_type, owner_id, key)
		SELECT 'Ticket', id, 'User', pick('users', account_id, id + 2), 'ticket.create' FROM tickets
		UNION ALL SELECT 'Conversation', id, 'User', pick('users', account_id, id), 'conversation.update' FROM conversations WHERE id % 2 = 0;
	INSERT INTO watchers (watchable_type, watchable_id, user_id)
		SELECT 'Ticket', id, pick('users', account_id, id + 3) FROM tickets WHERE id % 2 = 0
		UNION ALL SELECT 'Article', id, pick('users', account_id, id + 1) FROM articles;
	INSERT INTO mentions (mentionable_type, mentionable_id, user_id, mentioned_at)
		SELECT 'Message', id, pick('users', account_id, id + 4), '2024-05-01'::timestamp FROM messages WHERE id % 7 = 0
		UNION ALL SELECT 'Comment', c.id, pick('users', t.account_id, c.id + 2), '2024-05-02' FROM comments c JOIN tickets t ON c.commentable_type = 'Ticket' AND t.id = c.commentable_id WHERE c.id % 2 = 0;
	INSERT INTO subscriptions (subscribable_type, subscribable_id, contact_id)
		SELECT 'Article', id, pick('contacts', account_id, id) FROM articles
		UNION ALL SELECT 'Ticket', id, contact_id FROM tickets WHERE id % 5 = 0;
	INSERT INTO notes (notable_type, notable_id, author_id, content)
		SELECT 'Contact', id, pick('users', account_id, id), 'VIP' FROM contacts WHERE id % 4 = 1
		UNION ALL SELECT 'Company', id, pick('users', account_id, id + 1), 'renewal in May' FROM companies;
	INSERT INTO bookmarks (bookmarkable_type, bookmarkable_id, user_id)
		SELECT 'Ticket', id, pick('users', account_id, id) FROM tickets WHERE id % 3 = 2
		UNION ALL SELECT 'Article', id, pick('users', account_id, id + 3) FROM articles WHERE id % 2 = 0;
	INSERT INTO pins (pinnable_type, pinnable_id, pinned_by_id)
		SELECT 'Message', id, pick('users', account_id, id + 5) FROM messages WHERE id % 6 = 0
		UNION ALL SELECT 'Note', n2.id, n2.author_id FROM notes n2 WHERE n2.id % 2 = 0;
	INSERT INTO votes (votable_type, votable_id, voter_type, voter_id, value)
		SELECT 'Article', a.id, 'Contact', pick('contacts', a.account_id, a.id + k), 1 FROM articles a, generate_series(0, 1) k
		UNION ALL SELECT 'Comment', c.id, 'User', c.author_id, 1 FROM comments c WHERE c.id % 3 = 0;
	INSERT INTO api_access_tokens (owner_type, owner_id, label)
		SELECT 'User', id, 'personal' FROM users WHERE id % 2 = 0
		UNION ALL SELECT 'AgentBot', id, 'bot' FROM agent_bots;

	INSERT INTO active_storage_blobs (key, filename, byte_size) SELECT 'blob' || g, 'file' || g || '.png', 1024 * g FROM generate_series(1, 6 * n) g;
	INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id)
		SELECT 'avatar', 'User', u.id, u.id FROM users u WHERE u.id <= 3 * n
		UNION ALL SELECT 'file', 'Attachment', a.id, 3 * n + 1 + a.id % (3 * n) FROM attachments a WHERE a.id % 2 = 0 AND a.id <= 3 * n * 4;
	INSERT INTO active_storage_variant_records (blob_id, variation_digest) SELECT id, 'thumb' || id FROM active_storage_blobs WHERE id % 2 = 0;
	INSERT INTO oauth_applications (owner_type, owner_id, name, redirect_uri) SELECT 'Account', g, 'App ' || g, 'https://app' || g || '.example/cb' FROM generate_series(1, n) g;
	INSERT INTO oauth_access_tokens (application_id, resource_owner_id, scopes)
		SELECT o.id, pick('users', o.owner_id, o.id + k), 'read' FROM oauth_applications o, generate_series(0, 3) k;
	ANALYZE;
END $$;

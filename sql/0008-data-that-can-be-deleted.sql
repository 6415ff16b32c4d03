-- Migration: data that can be deleted
-- docs/data-lifecycle.md. A task whose data is removed keeps its row, scrubbed, with
-- data_removed_at set; retention finds settled tasks per account by settlement time (a settled
-- task's updated_at, compared in byte order), then id, as the file store orders them. Each item row carries the bytes of its files (an
-- account's stored bytes). Events, deliveries and console sessions get their account in a
-- column, so an erase deletes them by account: rows already there take it from their task, or
-- from their doc by a text match (see migration 6: a doc may hold what json refuses; the key
-- comes before any nested object in these docs).

ALTER TABLE accounts ADD COLUMN removed_charges bigint NOT NULL DEFAULT 0, ADD COLUMN retention text,
  ADD COLUMN erasing_since text, ADD COLUMN erased_at text;

ALTER TABLE tasks ADD COLUMN data_removed_at text;
CREATE INDEX tasks_settled_at ON tasks (account_id, (updated_at COLLATE "C"), id) WHERE status <> 'pending';
CREATE INDEX tasks_settled_with_data ON tasks (account_id, (updated_at COLLATE "C"), id) WHERE status <> 'pending' AND data_removed_at IS NULL;
ALTER TABLE task_items ADD COLUMN bytes bigint NOT NULL DEFAULT 0;

CREATE TABLE uploads (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  account_id text COLLATE "C" NOT NULL,
  api_key_id text COLLATE "C",
  file_name text COLLATE "C" NOT NULL,
  bytes bigint NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  deleted_at text
);
CREATE INDEX uploads_seq ON uploads (seq);
CREATE INDEX uploads_account ON uploads (account_id, created_at, id);

ALTER TABLE deliveries ADD COLUMN account_id text COLLATE "C";
UPDATE deliveries SET account_id = substring(doc from '"accountId":"([^"\\]*)"');
CREATE INDEX deliveries_account ON deliveries (account_id, id);
CREATE INDEX deliveries_settled ON deliveries ((updated_at COLLATE "C"), id) WHERE status <> 'pending';

ALTER TABLE events ADD COLUMN account_id text COLLATE "C";
UPDATE events e SET account_id = coalesce((SELECT t.account_id FROM tasks t WHERE t.id = e.task_id), substring(e.doc from '"accountId":"([^"\\]*)"'));
CREATE INDEX events_account ON events (account_id);

ALTER TABLE console_sessions ADD COLUMN account_id text COLLATE "C";
UPDATE console_sessions SET account_id = substring(doc from '"accountId":"([^"\\]*)"');
CREATE INDEX console_sessions_account ON console_sessions (account_id);

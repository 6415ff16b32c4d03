-- Migration: initial schema

CREATE SEQUENCE imgtask_order;

CREATE TABLE accounts (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  name_key text COLLATE "C" NOT NULL UNIQUE,
  balance bigint NOT NULL,
  reserved bigint NOT NULL DEFAULT 0,
  created_at text NOT NULL,
  updated_at text NOT NULL
);
CREATE INDEX accounts_seq ON accounts (seq);

CREATE TABLE credits (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  account_id text COLLATE "C" NOT NULL,
  doc text NOT NULL
);
CREATE INDEX credits_account ON credits (account_id, seq);

CREATE TABLE api_keys (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  account_id text COLLATE "C" NOT NULL,
  hash text COLLATE "C" NOT NULL,
  revoked_at text,
  doc text NOT NULL
);
CREATE UNIQUE INDEX api_keys_live_hash ON api_keys (hash) WHERE revoked_at IS NULL;
CREATE INDEX api_keys_live_account ON api_keys (account_id, seq) WHERE revoked_at IS NULL;

CREATE TABLE tasks (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  account_id text COLLATE "C" NOT NULL,
  api_key_id text COLLATE "C",
  type text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  estimate bigint NOT NULL,
  cost bigint NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text NOT NULL,
  event_id text COLLATE "C",
  settled_seq bigint,
  metadata_pairs text[] COLLATE "C" NOT NULL DEFAULT '{}',
  result text,
  errors text,
  prepared text,
  doc text NOT NULL
);
CREATE INDEX tasks_seq ON tasks (seq);
CREATE INDEX tasks_account ON tasks (account_id, id);
CREATE INDEX tasks_pending ON tasks (seq) WHERE status = 'pending';
CREATE INDEX tasks_type_status ON tasks (type, status);
CREATE INDEX tasks_without_event ON tasks (settled_seq) WHERE status <> 'pending' AND event_id IS NULL;
CREATE INDEX tasks_metadata ON tasks USING gin (metadata_pairs);

CREATE TABLE task_items (
  task_id text COLLATE "C" NOT NULL,
  idx integer NOT NULL,
  status text COLLATE "C" NOT NULL,
  doc text NOT NULL,
  PRIMARY KEY (task_id, idx)
);

CREATE TABLE key_spend (
  api_key_id text COLLATE "C" NOT NULL,
  period text COLLATE "C" NOT NULL,
  amount bigint NOT NULL,
  PRIMARY KEY (api_key_id, period)
);

CREATE TABLE secrets (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  doc text NOT NULL
);
CREATE INDEX secrets_seq ON secrets (seq);

CREATE TABLE webhooks (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  account_id text COLLATE "C" NOT NULL,
  doc text NOT NULL
);
CREATE INDEX webhooks_seq ON webhooks (seq);
CREATE INDEX webhooks_account ON webhooks (account_id, seq);

CREATE TABLE events (
  id text COLLATE "C" PRIMARY KEY,
  task_id text COLLATE "C",
  doc text NOT NULL
);

CREATE TABLE deliveries (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  pending_seq bigint,
  webhook_id text COLLATE "C",
  status text COLLATE "C" NOT NULL,
  next_attempt_at text COLLATE "C",
  updated_at text NOT NULL,
  attempts text NOT NULL,
  doc text NOT NULL
);
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, id);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE status = 'pending' AND next_attempt_at IS NOT NULL;
CREATE INDEX deliveries_pending ON deliveries (pending_seq) WHERE status = 'pending';
CREATE INDEX deliveries_status ON deliveries (status);

CREATE TABLE destinations (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  account_id text COLLATE "C" NOT NULL,
  name_key text COLLATE "C" NOT NULL,
  doc text NOT NULL,
  CONSTRAINT destinations_name UNIQUE (account_id, name_key)
);
CREATE INDEX destinations_account ON destinations (account_id, seq);

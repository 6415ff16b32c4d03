-- Migration: idempotency keys, key request windows, billing alerts

-- The first answer to a creating POST sent with an Idempotency-Key, replayed for 24 h. While
-- the first request is in flight, claim holds its token and expires_at the claim's lapse (renewed).
CREATE TABLE idempotency_keys (
  account_id text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  claim text COLLATE "C",
  expires_at timestamptz NOT NULL,
  doc text NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- Requests per key per minute window (requestsPerMinute): counters only, so not WAL-logged.
CREATE UNLOGGED TABLE key_request_windows (
  api_key_id text COLLATE "C" NOT NULL,
  window_start bigint NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (api_key_id, window_start)
);

-- A billing threshold reached, once per scope (account or key), period and threshold.
CREATE TABLE billing_alerts (
  scope_id text COLLATE "C" NOT NULL,
  period text COLLATE "C" NOT NULL,
  threshold integer NOT NULL,
  doc text NOT NULL,
  PRIMARY KEY (scope_id, period, threshold)
);

-- The UTC month a task settled in (null while pending; a settled task's updated_at never changes
-- again), indexed per account with the charge: a budget alert sums one account's month from the
-- index alone, and usage reads only the months its range covers. Generated, so no writer sets it.
ALTER TABLE tasks ADD COLUMN settled_month text COLLATE "C" GENERATED ALWAYS AS (CASE WHEN status <> 'pending' THEN left(updated_at, 7) END) STORED;
CREATE INDEX tasks_settled_month ON tasks (account_id, settled_month) INCLUDE (cost) WHERE settled_month IS NOT NULL;

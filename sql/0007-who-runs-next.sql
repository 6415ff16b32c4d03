-- Migration: who runs next
-- Fair share (docs/scheduling.md): each pending task carries its lane, its priority and its
-- start tag (start-time fair queueing: the later of the lane's virtual time and the account's
-- last finish tag in that lane), given at create; a claim takes a lane's tasks by
-- (priority, tag, age) from one index. Deadlines are found by their own index. Tasks created
-- before this migration have no lane and are claimed oldest first, as before.

ALTER TABLE accounts ADD COLUMN weight integer NOT NULL DEFAULT 1;
ALTER TABLE tasks ADD COLUMN lane text COLLATE "C", ADD COLUMN priority smallint NOT NULL DEFAULT 0,
  ADD COLUMN vstart double precision NOT NULL DEFAULT 0, ADD COLUMN deadline_at timestamptz;
CREATE INDEX tasks_queue ON tasks (lane, priority DESC, vstart, seq) WHERE status = 'pending';
CREATE INDEX tasks_unlaned ON tasks (seq) WHERE status = 'pending' AND lane IS NULL;
CREATE INDEX tasks_deadline ON tasks (deadline_at) WHERE status = 'pending' AND deadline_at IS NOT NULL;
CREATE INDEX tasks_key_leased ON tasks (api_key_id) WHERE status = 'pending' AND lease_owner IS NOT NULL;
CREATE TABLE lane_clocks (
  lane text COLLATE "C" PRIMARY KEY,
  vtime double precision NOT NULL DEFAULT 0
);
CREATE TABLE fair_tags (
  account_id text COLLATE "C" NOT NULL,
  lane text COLLATE "C" NOT NULL,
  finish double precision NOT NULL,
  PRIMARY KEY (account_id, lane)
);
CREATE TABLE lane_pauses (
  lane text COLLATE "C" PRIMARY KEY,
  paused_at text NOT NULL
);
CREATE TABLE lane_workers (
  worker text COLLATE "C" NOT NULL,
  lane text COLLATE "C" NOT NULL,
  running integer NOT NULL,
  capacity integer NOT NULL,
  queued_accounts text NOT NULL DEFAULT '',
  seen_at timestamptz NOT NULL,
  PRIMARY KEY (worker, lane)
);

-- Migration: console sessions
-- Web console sign-in links and sessions, found by the hash of their secret. used_at makes a
-- link single-use: the UPDATE that sets it is the one step that decides between two visits.

CREATE TABLE console_sessions (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  hash text COLLATE "C" NOT NULL UNIQUE,
  kind text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL,
  used_at text COLLATE "C",
  revoked_at text COLLATE "C",
  doc text NOT NULL
);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);

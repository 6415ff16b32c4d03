-- Migration: settlements applied to their account later
-- A settlement's money (its task's reserve released, its charge) waits here until a writer
-- holding the account row applies it (unapplied.ts): settlements never wait for that row.

CREATE TABLE unapplied_settlements (
  task_id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL,
  api_key_id text COLLATE "C",
  periods text[] COLLATE "C" NOT NULL,
  released bigint NOT NULL,
  charged bigint NOT NULL,
  at text NOT NULL
);
CREATE INDEX unapplied_settlements_account ON unapplied_settlements (account_id);
CREATE INDEX unapplied_settlements_key ON unapplied_settlements (api_key_id) WHERE api_key_id IS NOT NULL;

-- Migration: task leases
-- A pending task is run by the worker holding its lease; an expired lease is claimable again.
-- Times are the database's clock (now()), so workers on machines with skewed clocks agree.

ALTER TABLE tasks ADD COLUMN lease_owner text COLLATE "C", ADD COLUMN lease_until timestamptz;

-- Migration: deliveries by event
-- A task's event and every delivery of it (the console's task inspector): the event id in a
-- column of its own, written with each delivery, indexed. Rows already there get it from their
-- doc by a text match, never by a json cast: a doc may hold a NUL escape or a lone surrogate
-- (a URL can), which json and jsonb both refuse. The key comes first in the doc and a value
-- inside a string has its quotes escaped, so the first match is the key's.

ALTER TABLE deliveries ADD COLUMN event_id text COLLATE "C";
UPDATE deliveries SET event_id = substring(doc from '"eventId":"([^"\\]*)"');
CREATE INDEX deliveries_event ON deliveries (event_id);

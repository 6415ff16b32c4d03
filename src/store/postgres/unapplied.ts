/**
 * Settlements applied to their account later. Creates hold an account's row while they check
 * its balance (task-create.ts); were settlements to update that row too, every settlement would
 * queue behind the creates of its account, in every process. So a settlement does not: it
 * writes its money to `unapplied_settlements` (its task's estimate released, its charge, and the
 * key's spend periods its create counted in), and a writer holding the account row applies it:
 * the next create batch of the account (which applies all it sees before it checks), or the
 * settlement batch itself when the row is free at that moment (FOLD_FREE).
 *
 * What is not applied yet is added in wherever the ledger is read (EFFECTIVE_ACCOUNTS, the
 * key's spend): readers see what a settlement did the moment it committed. A settlement only
 * ever frees money (its charge is at most its estimate), so a create that cannot see one
 * committed after it began refuses at worst what it would have accepted a moment later, never
 * overdraws.
 */

/**
 * The account rows with what waits here added in: the columns of `accounts` (balance, reserved and updated_at as the
 * ledger stands).
 */
export const EFFECTIVE_ACCOUNTS = `(SELECT a.id, a.seq, a.name_key, a.weight, a.balance - coalesce(u.charged, 0) AS balance, a.reserved - coalesce(u.released, 0) AS reserved,
    a.removed_charges, a.retention, a.erasing_since, a.erased_at, a.created_at, greatest(a.updated_at, u.charged_at) AS updated_at
  FROM accounts a LEFT JOIN LATERAL (
    SELECT sum(s.charged) AS charged, sum(s.released) AS released, max(s.at) FILTER (WHERE s.charged > 0) AS charged_at
    FROM unapplied_settlements s WHERE s.account_id = a.id
  ) u ON true)`;

/** What waits for key $1 in spend period $2 (its charges less its releases, at most 0). */
export const UNAPPLIED_SPEND = `(SELECT coalesce(sum(s.charged - s.released), 0) FROM unapplied_settlements s WHERE s.api_key_id = $1 AND $2 = ANY(s.periods))`;

/**
 * The CTEs that apply what waits for the accounts `ids` (an SQL array of the account ids whose
 * rows the statement holds): `moved` (the rows taken), `folded` (per account: the estimates
 * released, the charges, when the last charge was) and `folded_spend` (per key and period). A
 * statement using them updates each account and spend row once, with these added.
 */
export const foldCtes = (ids: string): string => `moved AS (
  DELETE FROM unapplied_settlements s WHERE s.account_id = ANY(${ids}) RETURNING s.*
), folded AS (
  SELECT account_id, sum(released) AS released, sum(charged) AS charged, max(at) FILTER (WHERE charged > 0) AS charged_at FROM moved GROUP BY account_id
), folded_spend AS (
  SELECT api_key_id, p AS period, sum(charged - released) AS amount FROM moved, unnest(periods) AS p WHERE api_key_id IS NOT NULL GROUP BY api_key_id, p
)`;

/**
 * Applies what waits for the accounts of the tasks $1 whose rows are free now (SKIP LOCKED: a
 * row a create holds is left to that create, which applies it). After the settlements of a batch,
 * in their transaction.
 */
export const FOLD_FREE = `WITH free AS (
  SELECT id FROM accounts WHERE id = ANY(ARRAY(SELECT account_id FROM tasks WHERE id = ANY($1::text[]))) ORDER BY id FOR UPDATE SKIP LOCKED
), ${foldCtes('ARRAY(SELECT id FROM free)')}, account AS (
  UPDATE accounts a SET reserved = a.reserved - f.released, balance = a.balance - f.charged, updated_at = greatest(a.updated_at, f.charged_at)
  FROM folded f WHERE a.id = f.account_id AND a.id = ANY(ARRAY(SELECT id FROM free))
), spend AS (
  INSERT INTO key_spend (api_key_id, period, amount) SELECT api_key_id, period, amount FROM folded_spend ORDER BY api_key_id, period
  ON CONFLICT (api_key_id, period) DO UPDATE SET amount = key_spend.amount + excluded.amount
)
SELECT count(*) AS applied FROM moved`;

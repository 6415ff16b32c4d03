import type { ConsoleSessionRecord } from '../records/console-sessions.js';

/**
 * Web console sign-in links and sessions. Times are the caller's clock (ISO). A link is used at
 * most once, across processes: `consume` is the one atomic step that decides.
 */
export interface ConsoleSessionRepo {
  put(record: ConsoleSessionRecord): Promise<void>;
  /**
   * Marks the link with this hash used at `now` and answers it (with `usedAt`); undefined, with
   * nothing written, when there is no such link, or it is used, revoked or expired at `now`.
   */
  consume(hash: string, now: string): Promise<ConsoleSessionRecord | undefined>;
  /** The record with this hash, whatever its state (the caller checks expiry and revocation). */
  getByHash(hash: string): Promise<ConsoleSessionRecord | undefined>;
  /** Sessions and links not expired at `now` (revoked and used ones included), oldest first. */
  list(now: string): Promise<ConsoleSessionRecord[]>;
  /** Revokes a session or link; undefined when unknown or already revoked. */
  revoke(id: string, at: string): Promise<ConsoleSessionRecord | undefined>;
  /** Deletes every record expired at `now`; answers how many. */
  purgeExpired(now: string): Promise<number>;
  /** Deletes every record of the account (an erase); answers how many. */
  deleteByAccount(accountId: string): Promise<number>;
}

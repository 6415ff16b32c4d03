import pg from 'pg';
import type { StoreSignals } from '../repos/shared-queue.js';
import { clientConfig } from './connection.js';

/**
 * How long to wait before opening the dedicated connection again after it broke: from RECONNECT_MIN_MS, doubling while
 * it fails, up to RECONNECT_MAX_MS.
 */
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5000;

/**
 * StoreSignals over one dedicated connection (not a pooled one: LISTEN and session advisory
 * locks belong to a session). Opened on first use. When it breaks, it is opened again, with
 * backoff while the database stays away: the channels are listened to again, the locks it held
 * are gone (the server released them with the session), and `onReconnect` listeners are told
 * (they may have missed notifications). `onBroken` hears of each break.
 */
export function createPgSignals(
  url: string,
  log?: (message: string) => void,
  applicationName = 'imgtask',
  onBroken?: (err: Error) => void,
): StoreSignals {
  const listeners = new Map<string, Set<(payload: string) => void>>();
  const reconnected = new Set<() => void>();
  const held = new Set<number>();
  let client: Promise<pg.Client> | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let delay = RECONNECT_MIN_MS;

  const quote = (channel: string) => `"${channel.replace(/"/g, '""')}"`;

  function connect(): Promise<pg.Client> {
    client ??= (async () => {
      const next = new pg.Client({ ...clientConfig(url), application_name: `${applicationName} signals` });
      next.on('notification', (message) => {
        for (const fn of listeners.get(message.channel) ?? []) {
          try {
            fn(message.payload ?? '');
          } catch (err) {
            log?.(`postgres: a ${message.channel} listener failed: ${(err as Error).message}`);
          }
        }
      });
      next.on('error', (err) => broken(next, err));
      next.on('end', () => broken(next, new Error('the connection ended')));
      try {
        await next.connect();
        for (const channel of listeners.keys()) await next.query(`LISTEN ${quote(channel)}`);
      } catch (err) {
        client = undefined;
        next.end().catch(() => {});
        throw err;
      }
      return next;
    })();
    return client;
  }

  let current: pg.Client | undefined;
  function broken(which: pg.Client, err: Error): void {
    if (closed || (current !== undefined && current !== which)) return;
    current = undefined;
    client = undefined;
    held.clear();
    onBroken?.(err);
    if (!timer) log?.(`postgres: the signals connection broke (${err.message}); reconnecting`);
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (closed) return;
      open().then(
        () => {
          timer = undefined;
          delay = RECONNECT_MIN_MS;
          log?.('postgres: the signals connection is open again');
          for (const fn of reconnected) fn();
        },
        (e: Error) => {
          delay = Math.min(RECONNECT_MAX_MS, delay * 2);
          broken(which, e);
        },
      );
    }, delay);
    timer.unref();
  }

  async function open(): Promise<pg.Client> {
    if (closed) throw new Error('the store is closed');
    const c = await connect();
    current = c;
    return c;
  }

  /**
   * Runs one statement on the connection after those sent before it have finished: notifies,
   * lock calls and LISTENs come from anywhere in the process, and after a reconnection all that
   * waited for it at once (pg would queue them itself, but deprecates being handed a query while
   * one runs).
   */
  let last: Promise<unknown> = Promise.resolve();
  function statement<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const result = last.then(async () => (await open()).query<R>(text, values));
    last = result.catch(() => undefined);
    return result;
  }

  return {
    async notify(channel, payload) {
      await statement('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async listen(channel, fn) {
      const known = listeners.has(channel);
      const set = listeners.get(channel) ?? new Set();
      set.add(fn);
      listeners.set(channel, set);
      await open();
      if (!known) await statement(`LISTEN ${quote(channel)}`);
    },
    onReconnect(fn) {
      reconnected.add(fn);
    },
    async tryLock(key) {
      if (held.has(key)) return true;
      const { rows } = await statement<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
      if (rows[0].locked) held.add(key);
      return rows[0].locked;
    },
    tryLockAny(keys) {
      // Which keys to try is read when the statement runs, after those before it: a session's
      // advisory locks are reentrant, so a key this connection already holds (taken by a call
      // just before) must not be asked for again. The rows are tried in order and the first lock
      // taken ends the scan (LIMIT 1, no sort): no other is taken.
      const result = last.then(async () => {
        const free = keys.filter((key) => !held.has(key));
        if (free.length === 0) return null;
        const { rows } = await (await open()).query<{ key: string }>(
          'SELECT k::text AS key FROM unnest($1::bigint[]) AS u(k) WHERE pg_try_advisory_lock(k) LIMIT 1',
          [free],
        );
        if (rows.length === 0) return null;
        const key = Number(rows[0].key);
        held.add(key);
        return key;
      });
      last = result.catch(() => undefined);
      return result;
    },
    async unlock(key) {
      if (!held.delete(key)) return;
      await statement('SELECT pg_advisory_unlock($1)', [key]);
    },
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      const c = client;
      client = undefined;
      if (c) await (await c.catch(() => undefined))?.end().catch(() => {});
    },
  };
}

import { AppError } from '../../domain/errors.js';

/** Seconds a client is told to wait (Retry-After) before trying again: a fast restart takes well under one. */
const RETRY_AFTER_S = 1;
/** How often the database is tried while it is away: from PROBE_MIN_MS, doubling, up to PROBE_MAX_MS. */
const PROBE_MIN_MS = 250;
const PROBE_MAX_MS = 5000;

/**
 * SQLSTATEs that mean the database, not the statement, failed: class 08 (connection
 * exception), 57P01–57P03 and 57P05 (the server shut down, crashed, is starting, or ended an
 * idle session), 53300 (no connection slot left) and 25006 (a write reached a read-only server,
 * as after a failover to a standby).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[1235]|53300|25006)$/;
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** What pg says when a connection ends under it, or a client whose connection broke is used. */
const LOST_CONNECTION =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Query read timeout)/;

/**
 * Whether `err` says the database is out of reach (restarting, failed over, the connection killed), not that a
 * statement was wrong.
 */
export function isConnectionError(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || SOCKET_ERRORS.has(code))) return true;
  return typeof message === 'string' && LOST_CONNECTION.test(message);
}

/** The request error for a database out of reach: 503 with Retry-After, no internals in the message. */
export const storeUnavailable = (): AppError =>
  new AppError('STORE_UNAVAILABLE', 'the database cannot be reached right now; retry shortly', {
    headers: { 'retry-after': String(RETRY_AFTER_S) },
  });

export interface DbHealth {
  /** Why the database is taken to be away now; null while it answers. */
  failure(): string | null;
  /** A connection failed: the database is away until a probe (or a statement) gets through. */
  failed(err: Error): void;
  /** A statement got through: the database is back. */
  ok(): void;
  close(): void;
}

/**
 * What the process knows of the database's reachability, for GET /ready. A connection failure
 * (a statement's, an idle pooled connection's, the signals connection's) marks it away; from
 * then on `probe` (a SELECT 1 on a connection of its own, with a short timeout) runs with
 * backoff until it gets through, so the mark is lifted even when no request comes.
 */
export function createDbHealth(probe: () => Promise<void>, log?: (message: string) => void): DbHealth {
  let failure: string | null = null;
  let timer: NodeJS.Timeout | undefined;
  let delay = PROBE_MIN_MS;
  let closed = false;

  const schedule = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      probe().then(
        () => {
          timer = undefined;
          health.ok();
        },
        (err: Error) => {
          timer = undefined;
          if (failure === null) return; // a statement got through meanwhile
          failure = `the database cannot be reached (${err.message})`;
          delay = Math.min(PROBE_MAX_MS, delay * 2);
          schedule();
        },
      );
    }, delay);
    timer.unref();
  };

  const health: DbHealth = {
    failure: () => failure,
    failed(err) {
      if (closed) return;
      if (failure === null) log?.(`postgres: the database cannot be reached (${err.message}); retrying`);
      failure = `the database cannot be reached (${err.message})`;
      schedule();
    },
    ok() {
      if (failure === null) return;
      failure = null;
      delay = PROBE_MIN_MS;
      log?.('postgres: the database answers again');
    },
    close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
  return health;
}

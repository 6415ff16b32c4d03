import { AppError } from '../domain/errors.js';
import { randomBase62 } from '../domain/ids.js';
import { isoTime } from '../domain/time.js';
import type { IdempotencyRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import type { Clock } from './ports.js';
import { open, seal } from './secrets.js';

/** An answer as kept for replay: its status, the headers that matter, and its body text. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * What `begin` decides for a request: it is the key's first (run it, then `finish` with its
 * answer, or null for an answer not kept), or the first one's answer is to be replayed.
 */
export type IdempotencyOutcome =
  | { kind: 'first'; finish(answer: StoredAnswer | null): Promise<void> }
  | { kind: 'replay'; answer: StoredAnswer };

/** How long an answer is replayed, from the first request. */
const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** A claim lapses this long after its last renewal: a process that stopped mid-request frees its keys within it. */
const CLAIM_MS = 60_000;
const RENEW_EVERY_MS = 20_000;
/**
 * How long a retry waits for a first request answered by another process, polling, before 409 IDEMPOTENCY_KEY_IN_USE.
 */
const WAIT_MS = 5_000;
const POLL_MS = 50;
const PURGE_EVERY_MS = 10 * 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Settled = { fingerprint: string; answer: StoredAnswer } | null;

/** Idempotency-Key records: the first answer of a request, replayed to its retries. */
export interface IdempotencyService {
  begin(accountId: string, key: string, fingerprint: string): Promise<IdempotencyOutcome>;
}

/**
 * Idempotency-Key bookkeeping (issue 18): one record per account and key in the store, the
 * answer sealed with the secrets key (it may carry a raw API key or a webhook secret). In this
 * process a retry of a request still running waits for its answer (a promise per key); across
 * processes (PostgreSQL) the claim row tells, and a retry polls it for up to 5 s.
 */
export function createIdempotencyService(deps: {
  store: Store;
  clock: Clock;
  secretsKey: Uint8Array;
  log: (message: string) => void;
}): IdempotencyService {
  const { store, clock } = deps;
  /** Keys whose first request runs in this process, each with the promise of how it ended. */
  const running = new Map<string, Promise<Settled>>();
  let lastPurge = Number.NEGATIVE_INFINITY;

  const sealName = (id: string) => `idempotency:${id}`;
  const unseal = (record: IdempotencyRecord): StoredAnswer =>
    JSON.parse(open(deps.secretsKey, sealName(record.id), record.answer!)) as StoredAnswer;

  /** Drops expired records now and then (every 10 minutes of the service's clock), in the background. */
  function purgeNowAndThen(now: number): void {
    if (now - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = now;
    store.idempotency
      .purgeExpired(isoTime(now))
      .catch((err: Error) => deps.log(`idempotency: purge failed: ${err.message}`));
  }

  const reused = () =>
    new AppError(
      'IDEMPOTENCY_KEY_REUSED',
      'this Idempotency-Key was used with another request (method, path or body); use a new key',
    );

  async function begin(accountId: string, key: string, fingerprint: string): Promise<IdempotencyOutcome> {
    const id = `${accountId}:${key}`;
    const waitUntil = performance.now() + WAIT_MS;
    for (;;) {
      const local = running.get(id);
      if (local) {
        const settled = await local;
        if (!settled) continue; // its answer was not kept: the key is free again
        if (settled.fingerprint !== fingerprint) throw reused();
        return { kind: 'replay', answer: settled.answer };
      }
      let settle!: (settled: Settled) => void;
      running.set(
        id,
        new Promise<Settled>((resolve) => {
          settle = resolve;
        }),
      );
      let claimed = false;
      try {
        const now = clock.now();
        purgeNowAndThen(now);
        const claim = randomBase62(22);
        const createdAt = isoTime(now);
        const record: IdempotencyRecord = {
          id,
          accountId,
          key,
          fingerprint,
          createdAt,
          expiresAt: isoTime(now + CLAIM_MS),
          claim,
        };
        const result = await store.idempotency.claim(record, createdAt);
        if (result.claimed) {
          claimed = true;
          return first(record, claim, settle);
        }
        const existing = result.record;
        if (existing.fingerprint !== fingerprint) throw reused();
        if (existing.answer) return { kind: 'replay', answer: unseal(existing) };
      } finally {
        if (!claimed) {
          running.delete(id);
          settle(null);
        }
      }
      // Claimed by another process (or by one that stopped, until its claim lapses): poll.
      if (performance.now() >= waitUntil) {
        throw new AppError(
          'IDEMPOTENCY_KEY_IN_USE',
          'the first request with this Idempotency-Key is still being answered; retry later',
          { headers: { 'retry-after': '1' } },
        );
      }
      await sleep(POLL_MS);
    }
  }

  function first(record: IdempotencyRecord, claim: string, settle: (settled: Settled) => void): IdempotencyOutcome {
    const renewal = setInterval(() => {
      store.idempotency.renew(record.id, claim, isoTime(clock.now() + CLAIM_MS)).then(
        (held) => held || deps.log(`idempotency: the claim of key ${record.key} lapsed while its request ran`),
        (err: Error) => deps.log(`idempotency: renewing a claim failed: ${err.message}`),
      );
    }, RENEW_EVERY_MS);
    renewal.unref();
    let finished = false;
    return {
      kind: 'first',
      async finish(answer) {
        if (finished) return;
        finished = true;
        clearInterval(renewal);
        let settled: Settled = null;
        try {
          if (!answer) {
            await store.idempotency.release(record.id, claim);
            return;
          }
          const { claim: _, ...rest } = record;
          const answered: IdempotencyRecord = {
            ...rest,
            expiresAt: isoTime(Date.parse(record.createdAt) + IDEMPOTENCY_RETENTION_MS),
            answer: seal(deps.secretsKey, sealName(record.id), JSON.stringify(answer)),
          };
          if (await store.idempotency.complete(answered, claim)) settled = { fingerprint: record.fingerprint, answer };
          else deps.log(`idempotency: the claim of key ${record.key} lapsed before its answer was kept`);
        } finally {
          running.delete(record.id);
          settle(settled);
        }
      },
    };
  }

  return { begin };
}

import { AppError } from '../domain/errors.js';
import { formatUsd } from '../domain/money.js';
import { isoTime } from '../domain/time.js';
import type { Store, UsageEntry } from '../store/store-contract.js';
import type { Clock } from './ports.js';

export const USAGE_GROUP_BY = ['day', 'key', 'type', 'model'] as const;
export type UsageGroupBy = (typeof USAGE_GROUP_BY)[number];

const DAY_MS = 86_400_000;
/** The default range: the last 30 days. */
const DEFAULT_DAYS = 30;
/** The longest range one report covers. */
export const MAX_USAGE_DAYS = 366;

/** Figures of a group or of the total: the charge as a decimal USD string, as tasks show `cost`. */
interface UsageFigures {
  cost: string;
  /** Settled tasks (completed or failed, charged or not). */
  tasks: number;
  /** Their successful (charged) items. */
  items: number;
}

/**
 * What the account stores now, whatever the range: the files of its tasks that still hold their
 * data (images, videos, posters) and its uploads. Bytes as stored; `bytes` is their sum.
 */
export interface StoredUsage {
  at: string;
  bytes: number;
  outputs: { bytes: number };
  uploads: { count: number; bytes: number };
}

export interface UsageReport {
  from: string;
  to: string;
  groupBy: UsageGroupBy;
  total: UsageFigures;
  groups: (UsageFigures & { key: string | null })[];
  storage: StoredUsage;
}

export interface UsageQuery {
  /** ISO date (`2026-11-01`, midnight UTC) or date-time with an offset; default `to` − 30 days. */
  from?: string;
  /** Exclusive; default now. */
  to?: string;
  groupBy?: UsageGroupBy;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A date-time with seconds and an offset (`Z` or `±hh:mm`), fractions allowed. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/** A `from` or `to` as milliseconds; VALIDATION_ERROR naming it when it is not a real date or date-time. */
function parseInstant(text: string, name: string): number {
  const millis = DATE.test(text)
    ? Date.parse(`${text}T00:00:00.000Z`)
    : DATE_TIME.test(text)
      ? Date.parse(text)
      : Number.NaN;
  // Date.parse rolls 2026-02-30 over to March: a date that does not survive the round trip is not one.
  if (!Number.isFinite(millis) || (DATE.test(text) && new Date(millis).toISOString().slice(0, 10) !== text)) {
    throw new AppError(
      'VALIDATION_ERROR',
      `${name} must be an ISO 8601 date (2026-11-01) or date-time with an offset (2026-11-01T00:00:00Z), not "${text}"`,
    );
  }
  if (millis < 0 || millis > Date.parse('9999-12-31T23:59:59.999Z'))
    throw new AppError('VALIDATION_ERROR', `${name} is out of range`);
  return millis;
}

/** The key a settled task counts under. Days are UTC days of settlement. */
const keyOf: Record<UsageGroupBy, (entry: UsageEntry) => string | null> = {
  day: (entry) => entry.settledAt.slice(0, 10),
  key: (entry) => entry.apiKeyId,
  type: (entry) => entry.type,
  model: (entry) => entry.model,
};

/** Keys in byte order, null (tasks of no key or no model) last. */
const byKey = (a: { key: string | null }, b: { key: string | null }): number =>
  a.key === b.key ? 0 : a.key === null ? 1 : b.key === null ? -1 : a.key < b.key ? -1 : 1;

/** Usage reports: spend and counts by period, type or key. */
export interface UsageService {
  /** The range a query asks for, checked: from < to, at most MAX_USAGE_DAYS long. */
  range(query: Pick<UsageQuery, 'from' | 'to'>): { from: number; to: number };
  /** The bytes the account stores now (StoredUsage). */
  storage(accountId: string): Promise<StoredUsage>;
  /** An account's usage over a period, grouped as asked. */
  report(accountId: string, query: UsageQuery): Promise<UsageReport>;
}

/**
 * Usage: an account's charges from the ledger, by settlement time. Each settled task counts
 * once, with what it was charged (failed items and failed tasks are free, so they add tasks
 * but no cost); credits are not usage and are not included. Beside the charges, what the account
 * stores now (StoredUsage).
 */
export function createUsageService(deps: { store: Store; clock: Clock }): UsageService {
  return {
    /** The range a query asks for, checked: from < to, at most MAX_USAGE_DAYS long. */
    range(query: Pick<UsageQuery, 'from' | 'to'>): { from: number; to: number } {
      const to = query.to === undefined ? deps.clock.now() : parseInstant(query.to, 'to');
      const from = query.from === undefined ? to - DEFAULT_DAYS * DAY_MS : parseInstant(query.from, 'from');
      if (from >= to)
        throw new AppError('VALIDATION_ERROR', `from (${isoTime(from)}) must be before to (${isoTime(to)})`);
      if (to - from > MAX_USAGE_DAYS * DAY_MS)
        throw new AppError('VALIDATION_ERROR', `the range is longer than ${MAX_USAGE_DAYS} days`);
      return { from, to };
    },

    /** The bytes the account stores now (StoredUsage). */
    async storage(accountId: string): Promise<StoredUsage> {
      const at = isoTime(deps.clock.now());
      const [outputs, uploads] = await Promise.all([
        deps.store.tasks.storedBytes(accountId),
        deps.store.uploads.usage(accountId),
      ]);
      return {
        at,
        bytes: outputs + uploads.bytes,
        outputs: { bytes: outputs },
        uploads: { count: uploads.count, bytes: uploads.bytes },
      };
    },

    async report(accountId: string, query: UsageQuery): Promise<UsageReport> {
      const range = this.range(query);
      const groupBy = query.groupBy ?? 'day';
      const from = isoTime(range.from);
      const to = isoTime(range.to);
      const groups = new Map<string | null, { cost: number; tasks: number; items: number }>();
      const total = { cost: 0, tasks: 0, items: 0 };
      const [entries, storage] = await Promise.all([
        deps.store.billing.usage(accountId, from, to),
        this.storage(accountId),
      ]);
      for (const entry of entries) {
        const key = keyOf[groupBy](entry);
        let group = groups.get(key);
        if (!group) {
          group = { cost: 0, tasks: 0, items: 0 };
          groups.set(key, group);
        }
        for (const figures of [group, total]) {
          figures.cost += entry.cost;
          figures.tasks += 1;
          figures.items += entry.items;
        }
      }
      const figures = (f: { cost: number; tasks: number; items: number }): UsageFigures => ({
        cost: formatUsd(f.cost),
        tasks: f.tasks,
        items: f.items,
      });
      return {
        from,
        to,
        groupBy,
        total: figures(total),
        groups: Array.from(groups, ([key, f]) => ({ key, ...figures(f) })).sort(byKey),
        storage,
      };
    },
  };
}

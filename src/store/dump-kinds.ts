/** The kinds of record a dump holds, in dump order, and the check each line's record passes before it is stored. */
export const DUMP_KINDS = [
  'account',
  'credit',
  'apiKey',
  'task',
  'secret',
  'webhook',
  'event',
  'delivery',
  'destination',
  'upload',
] as const;
export type DumpKind = (typeof DUMP_KINDS)[number];

/** Fields each kind must have, by type: enough to refuse a damaged or foreign line before it is stored. */
const STRINGS: Record<DumpKind, string[]> = {
  account: ['id', 'name', 'createdAt', 'updatedAt'],
  credit: ['id', 'accountId', 'createdAt'],
  apiKey: ['id', 'accountId', 'hash', 'preview', 'spendingLimitPeriod', 'createdAt'],
  task: ['id', 'type', 'status', 'accountId', 'createdAt', 'updatedAt'],
  secret: ['id', 'sealed', 'createdAt', 'updatedAt'],
  webhook: ['id', 'accountId', 'url', 'sealedSecret', 'createdAt', 'updatedAt'],
  event: ['id', 'type', 'accountId', 'createdAt'],
  delivery: ['id', 'eventId', 'accountId', 'url', 'status', 'createdAt', 'updatedAt'],
  destination: ['id', 'accountId', 'name', 'createdAt', 'updatedAt'],
  upload: ['id', 'accountId', 'fileName', 'createdAt'],
};
/** Money and counts: whole numbers. */
const INTEGERS: Partial<Record<DumpKind, string[]>> = {
  account: ['balance'],
  credit: ['amount'],
  task: ['estimate', 'cost'],
  upload: ['bytes'],
};
const ARRAYS: Partial<Record<DumpKind, string[]>> = {
  apiKey: ['scopes'],
  task: ['items'],
  webhook: ['apiKeyIds'],
  delivery: ['attempts'],
};
const STATUSES: Partial<Record<DumpKind, readonly string[]>> = {
  task: ['pending', 'completed', 'failed'],
  delivery: ['pending', 'delivered', 'failed'],
};

/** What is wrong with a record of `kind`, or null. */
export function recordProblem(kind: DumpKind, record: unknown): string | null {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return 'the record is not an object';
  const r = record as Record<string, unknown>;
  for (const field of STRINGS[kind]) if (typeof r[field] !== 'string') return `${field} is not a string`;
  for (const field of INTEGERS[kind] ?? [])
    if (!Number.isSafeInteger(r[field])) return `${field} is not a whole number`;
  for (const field of ARRAYS[kind] ?? []) if (!Array.isArray(r[field])) return `${field} is not a list`;
  const statuses = STATUSES[kind];
  if (statuses && !statuses.includes(r.status as string)) return `status "${String(r.status)}" is unknown`;
  if (
    kind === 'task' &&
    (r.items as unknown[]).some(
      (item) => typeof item !== 'object' || item === null || typeof (item as { status?: unknown }).status !== 'string',
    )
  )
    return 'an item has no status';
  if (kind === 'task' && (r.cost as number) > (r.estimate as number)) return 'cost is above the estimate';
  return null;
}

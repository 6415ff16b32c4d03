/** @jsxImportSource hono/jsx */
import { formatUsd } from '../../domain/money.js';
import type { TaskRecord } from '../../engine/task-registry.js';
import type { ApiKeyView } from '../../services/api-keys.js';

/** A stored time (ISO, UTC) as people read it, to the second; the exact value stays in `datetime`. */
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">—</span>;
  return <time datetime={at}>{`${at.slice(0, 10)} ${at.slice(11, 19)} UTC`}</time>;
}

/** A task's or an item's status, as text in a badge (the colour only repeats it). */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge ${status}`}>{status}</span>;
}

/** How many of a task's items succeeded and failed. */
export function itemCounts(task: Pick<TaskRecord, 'items'>): { succeeded: number; failed: number; total: number } {
  let succeeded = 0;
  let failed = 0;
  for (const item of task.items) {
    if (item.status === 'success') succeeded++;
    else if (item.status === 'failed') failed++;
  }
  return { succeeded, failed, total: task.items.length };
}

/** What a task cost: the charge once settled; while pending, what is reserved for it. */
export function CostText({ task }: { task: Pick<TaskRecord, 'status' | 'cost' | 'estimate'> }) {
  if (task.status === 'pending') return <span class="muted">{`${formatUsd(task.estimate)} reserved`}</span>;
  return <>{formatUsd(task.cost)}</>;
}

/** The key a task was created with, by name where it still lives; an access token's task has none. */
export function KeyLabel({ keyId, keys }: { keyId: string | null; keys: readonly ApiKeyView[] }) {
  if (keyId === null) return <span class="muted">access token</span>;
  const key = keys.find((k) => k.id === keyId);
  if (!key) return <span>{`${keyId} (deleted)`}</span>;
  return <span title={key.id}>{key.name ?? key.keyPreview}</span>;
}

/** A link target shown to the user: only http(s) URLs and paths of this server, never `javascript:` or the like. */
export function safeHref(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.startsWith('/') && !value.startsWith('//')) return value;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** JSON as the console shows it: indented text in a <pre> (focusable: it scrolls when long). */
export function Json({ value }: { value: unknown }) {
  return (
    <pre class="json" tabindex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

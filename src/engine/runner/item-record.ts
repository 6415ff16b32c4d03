import type { ProviderError } from '../../domain/task-status.js';
import type { StoredFile } from '../../store/records.js';
import type { ItemRecord, TaskRecord, TaskTypeDefinition } from '../task-registry.js';

/** How an item's runs ended (withRetry's answer). */
export type ItemOutcome =
  | { ok: true; value: unknown; attempts: number }
  | { ok: false; error: ProviderError; attempts: number };

/** The record of an item's outcome: its result and cost, or its error under the code its task type reports. */
export function itemRecordOf(
  def: Pick<TaskTypeDefinition, 'itemCost' | 'itemErrorCode'>,
  task: TaskRecord,
  index: number,
  outcome: ItemOutcome,
  files: readonly StoredFile[],
): ItemRecord {
  const code = outcome.ok ? undefined : (def.itemErrorCode?.(outcome.error.code) ?? outcome.error.code);
  const item: ItemRecord = outcome.ok
    ? {
        status: 'success',
        result: outcome.value,
        cost: def.itemCost(task.request, index),
        attempts: outcome.attempts,
      }
    : { status: 'failed', error: { code: code!, message: outcome.error.message }, attempts: outcome.attempts };
  // Every file its runs stored, a failed attempt's too: deleting the task removes them all.
  if (files.length > 0) item.files = [...files];
  return item;
}

/**
 * An item's failure for the log: its message and, when something unexpected was thrown underneath, that with its stack.
 */
export function describeFailure(error: Error): string {
  const { cause } = error;
  if (cause === undefined) return error.message;
  return `${error.message}: ${cause instanceof Error ? (cause.stack ?? `${cause.name}: ${cause.message}`) : String(cause)}`;
}

/**
 * Removes the files of an item run that its record does not hold (the task settled or was
 * deleted under it, another process recorded the item, or the runner stopped mid-item): no
 * task refers to them, so nothing else would.
 */
export async function discardUnrecorded(
  deps: {
    getTask(taskId: string): Promise<TaskRecord | undefined>;
    discardFiles?: (files: readonly StoredFile[]) => Promise<void>;
    log: (message: string) => void;
  },
  taskId: string,
  index: number,
  files: readonly StoredFile[],
): Promise<void> {
  if (files.length === 0 || !deps.discardFiles) return;
  // A record that failed after its write (the settlement refused for lack of space) may hold them: read back.
  const item = (await deps.getTask(taskId))?.items[index];
  const kept = new Set((item?.files ?? []).map((file) => file.name));
  const stray = files.filter((file) => !kept.has(file.name));
  if (stray.length === 0) return;
  await deps
    .discardFiles(stray)
    .catch((err: Error) =>
      deps.log(
        `task ${taskId} item ${index}: files no record names not removed (${err.message}); doctor --fix removes them`,
      ),
    );
}

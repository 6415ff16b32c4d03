/** @jsxImportSource hono/jsx */
import type { TaskRecord } from '../../engine/task-registry.js';
import type { ApiKeyView } from '../../services/api-keys.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import { Csrf } from '../layout.js';

/** The page that asks before a task's data is deleted; `from` the gallery, it leads back there. */
export const deleteUrl = (taskId: string, from?: 'gallery'): string =>
  `/console/tasks/${encodeURIComponent(taskId)}/delete${from ? `?from=${from}` : ''}`;

interface ActionsProps {
  session: ConsoleSession;
  task: TaskRecord;
  /** The account's live keys. */
  keys: readonly ApiKeyView[];
  /** The key chosen in a run-again form that was refused, kept selected. */
  chosenKeyId?: string;
}

/**
 * Cancel (while pending), "Run again" (a new task of the same type with the same request) and Delete (asks first, on a
 * page of its own).
 */
export function TaskActions({ session, task, keys, chosenKeyId }: ActionsProps) {
  // A deleted task keeps no request to run again, and nothing more to delete.
  if (task.dataRemovedAt !== undefined) return null;
  const original = task.apiKeyId === null ? undefined : keys.find((key) => key.id === task.apiKeyId);
  return (
    <section aria-labelledby="actions-heading">
      <h2 id="actions-heading" class="visually-hidden">
        Actions
      </h2>
      <div class="actions task-actions">
        {task.status === 'pending' && (
          <form
            method="post"
            action={`/console/tasks/${task.id}/cancel`}
            data-confirm="Cancel this task? Unfinished items fail with TASK_CANCELLED."
          >
            <Csrf session={session} />
            <button type="submit" class="danger">
              Cancel task
            </button>
          </form>
        )}
        <form method="post" action={`/console/tasks/${task.id}/again`} class="run-again">
          <Csrf session={session} />
          {original ? (
            <span class="muted">{`As key ${original.name ?? original.keyPreview}`}</span>
          ) : keys.length > 0 ? (
            <label for="again-key">
              {task.apiKeyId === null ? 'Key to run it with' : 'Its key is gone: run it with'}
              <select id="again-key" name="keyId" required>
                {keys.map((key) => (
                  <option value={key.id} selected={key.id === chosenKeyId}>
                    {key.name ? `${key.name} (${key.keyPreview})` : key.keyPreview}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <span class="muted">
              Running it again needs an API key: create one on the <a href="/console/keys">Keys</a> page.
            </span>
          )}
          <button type="submit" class="quiet" disabled={!original && keys.length === 0}>
            Run again
          </button>
        </form>
        <a class="button danger" href={deleteUrl(task.id)}>
          Delete…
        </a>
      </div>
    </section>
  );
}

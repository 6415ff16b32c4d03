/** @jsxImportSource hono/jsx */
import type { TaskRecord } from '../../engine/task-registry.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import { Csrf, Notice, Page } from '../layout.js';

interface DeleteProps {
  session: ConsoleSession;
  task: TaskRecord;
  /** Where "Keep it" and the deletion lead: the gallery, or the task's own page. */
  from?: 'gallery';
  /** How long a browser or CDN may keep a copy of a served image (images.cacheMaxAgeSeconds). */
  cacheMaxAgeSeconds: number;
  /** Why a deletion was refused, to try again. */
  refused?: { code: string; message: string };
}

/** A duration in seconds as words: 86400 → "1 day", 3600 → "1 hour". */
function duration(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units)
    if (seconds >= size && seconds % size === 0) return `${seconds / size} ${name}${seconds === size ? '' : 's'}`;
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** GET /console/tasks/{id}/delete: what deleting the task removes and what stays, and the one button that does it. */
export function TaskDeletePage({ session, task, from, cacheMaxAgeSeconds, refused }: DeleteProps) {
  const back = from === 'gallery' ? '/console/gallery' : `/console/tasks/${encodeURIComponent(task.id)}`;
  return (
    <Page
      title={`Delete task ${task.id}?`}
      session={session}
      active="/console/tasks"
      lead={`A ${task.type} task, ${task.status}.`}
    >
      {refused && (
        <Notice kind="error">
          <strong>{refused.code}</strong>
          {`: ${refused.message}`}
        </Notice>
      )}
      {task.status === 'pending' && (
        <p>It is still pending: it is cancelled first, and its unfinished items fail with TASK_CANCELLED.</p>
      )}
      <p>Deleting it removes, for good:</p>
      <ul>
        <li>its images and videos, with their poster frames (their links answer 404);</li>
        <li>
          its request (prompt, metadata, URLs), its result (alt text, ratings, review findings) and its error messages;
        </li>
        <li>the webhook event stored for it (a delivery still to be sent carries nothing of them).</li>
      </ul>
      <p>
        {`Kept, for your invoices and usage: its id, type, status, cost, key and times. A copy a destination received, or one a browser or CDN cached (for up to ${duration(cacheMaxAgeSeconds)}), is not reached.`}
      </p>
      <form method="post" action={`/console/tasks/${encodeURIComponent(task.id)}/delete`} class="actions">
        <Csrf session={session} />
        {from && <input type="hidden" name="from" value={from} />}
        <button type="submit" class="danger">
          Delete task
        </button>
        <a href={back}>Keep it</a>
      </form>
    </Page>
  );
}

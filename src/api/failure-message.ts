/** Longest reason quoted for one item, and longest message: a failed sync answer stays one readable line. */
const REASON_CHARS = 200;
const MESSAGE_CHARS = 1000;

interface FailedTask {
  id: string;
  items: { status: string; error?: { code: string; message?: string } }[];
  errors?: { code: string; message?: string }[];
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const reasonOf = (error: { code: string; message?: string }) =>
  error.message ? `${error.code} (${cut(error.message, REASON_CHARS)})` : error.code;

/**
 * The message of a failed sync answer (docs/api/errors.md): the task, then each failed item's
 * code and reason (numbered from 1, as the results are listed, when the task has several); the
 * task's own errors when no item says why (a task that failed as a whole). Bounded: past
 * MESSAGE_CHARS, how many more failed.
 */
export function taskFailureMessage(task: FailedTask): string {
  const numbered = task.items.length > 1;
  const items = task.items.flatMap((item, index) =>
    item.status === 'failed' && item.error ? [`${numbered ? `item ${index + 1} ` : ''}${reasonOf(item.error)}`] : [],
  );
  const parts = items.length > 0 ? items : (task.errors ?? []).map(reasonOf);
  let message = `task ${task.id} failed`;
  for (const [index, part] of parts.entries()) {
    const more = parts.length - index;
    if (message.length + part.length > MESSAGE_CHARS) return `${message}; and ${more} more`;
    message += `${index === 0 ? ': ' : '; '}${part}`;
  }
  return message;
}

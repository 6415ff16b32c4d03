import { ApiError, type Client, type SyncAnswer, type TaskView } from '../client/http-client.js';
import { deadlineOf, plainText, taskLines, type UrlResult, urlResultLine, urlResultsOf } from '../tui/task-lines.js';
import { EXIT, print } from './output.js';

/** A task as text, the files rate/alt sources came from named as given. */
export const describeTask = (task: TaskView, files?: ReadonlyMap<string, string>): string =>
  plainText(taskLines(task, { files }));

/**
 * For a failed task: its errors on stderr, one line each with code and message (and, for an
 * expiry, the deadline it missed); answers exit 3 (EXIT.taskFailed). Undefined for a task that
 * did not fail.
 */
export function reportTaskFailure(task: TaskView): number | undefined {
  if (task.status !== 'failed') return undefined;
  const errors = 'errors' in task ? (task.errors ?? []) : [];
  if (errors.length === 0) process.stderr.write(`imgtask: task ${task.id} failed\n`);
  const deadline = deadlineOf(task);
  for (const e of errors) {
    // An expiry names the deadline it missed: the sweep's 24-hour expiry has none.
    const missed = e.code === 'TASK_EXPIRED' && deadline ? ` (deadline ${deadline})` : '';
    process.stderr.write(`imgtask: task ${task.id} failed: ${e.code}${e.message ? `: ${e.message}` : ''}${missed}\n`);
  }
  return EXIT.taskFailed;
}

/** Rate/alt results with `file`: the local file an uploaded source came from. */
export const withFiles = <R extends { url: string }>(
  results: R[],
  files: ReadonlyMap<string, string>,
): (R & { file?: string })[] => results.map((r) => (files.has(r.url) ? { ...r, file: files.get(r.url) } : r));

type UrlListData = { task: { id: string; status: string; cost?: string }; results?: UrlResult[] };

/** A task the API's sync answer names as failed, or the answer itself. */
type WaitedAnswer<Data> = { answer: SyncAnswer<Data> } | { failed: TaskView };

/**
 * Sends a request that waits for its task (rate, alt, review). When the task failed, the API
 * answers 500 UNKNOWN_ERROR naming it: that task is fetched and answered as `failed`, to be
 * reported as any other failed task is. Other errors are thrown.
 */
export async function sendWaiting<Data>(
  client: Client,
  send: () => Promise<SyncAnswer<Data>>,
): Promise<WaitedAnswer<Data>> {
  try {
    return { answer: await send() };
  } catch (err) {
    const failed =
      err instanceof ApiError && err.code === 'UNKNOWN_ERROR'
        ? /\btask (tsk_[0-9A-Za-z]+) failed\b/.exec(err.message)
        : null;
    if (!failed) throw err;
    return { failed: await client.task(failed[1]) };
  }
}

/** A sync request answered 202 (still running, or --async): the task to poll, and how. */
export function printPending(json: boolean, data: { task: { id: string } }): number {
  print({ json }, data, `task ${data.task.id} pending: imgtask tasks watch ${data.task.id}`);
  return EXIT.ok;
}

/**
 * Sends a rate or alt request and reports its answer: the results (each under the name it was
 * given), the task to poll (202), or, when the sync task failed, the failed task with its errors
 * on stderr and exit 3, as for any other failed task.
 */
export async function syncAnswer(
  client: Client,
  json: boolean,
  files: ReadonlyMap<string, string>,
  send: () => Promise<SyncAnswer<UrlListData>>,
): Promise<number> {
  const sent = await sendWaiting(client, send);
  if ('failed' in sent) {
    const task = sent.failed;
    const results = urlResultsOf(task);
    const shown =
      results.length && 'result' in task
        ? { ...task, result: { ...task.result, results: withFiles(results, files) } }
        : task;
    print({ json }, shown, () => describeTask(task, files));
    return reportTaskFailure(task) ?? EXIT.taskFailed;
  }
  const { data } = sent.answer;
  if (sent.answer.status === 202) return printPending(json, data);
  const results = data.results ?? [];
  print({ json }, { ...data, results: withFiles(results, files) }, () =>
    plainText([
      [{ text: `${data.task.id} cost ${data.task.cost} USD` }],
      ...results.map((r) => urlResultLine(r, files)),
    ]),
  );
  return results.some((r) => r.status === 'failed') ? EXIT.itemsFailed : EXIT.ok;
}

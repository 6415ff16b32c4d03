import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client, TaskProgress, TaskView } from '../client/http-client.js';
import { environment } from '../config/environment.js';
import { type ImageItem, imagesOf, urlResultsOf, type VideoItem, videosOf } from '../tui/task-lines.js';
import { createdText } from './created-task.js';
import { EXIT, print } from './output.js';
import { createPreviewPrinter, inlineImageProtocol } from './preview-lines.js';
import { describeTask, reportTaskFailure } from './task-report.js';

/** Saves the task's successful images and videos into `dir` as `<id>.<ext>`, noting each saved path on its item. */
async function saveItems(client: Client, items: (ImageItem | VideoItem)[], dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const item of items) {
    if (item.status === 'failed' || !item.service_url) continue;
    const path = join(dir, item.service_url.split('/').pop()!);
    await writeFile(path, await client.download(item.service_url));
    item.savedTo = path;
  }
}

/** The items --out saves: a task's images, or its videos. */
const savedItemsOf = (task: TaskView): (ImageItem | VideoItem)[] => [...imagesOf(task), ...videosOf(task)];

/** The exit code a settled task calls for. */
const exitCodeOf = (task: TaskView): number =>
  task.status === 'failed'
    ? EXIT.taskFailed
    : [...savedItemsOf(task), ...urlResultsOf(task)].some((i) => i.status === 'failed')
      ? EXIT.itemsFailed
      : 0;

/**
 * Follows a task to its end: the Ink view on a terminal (its progress bar fed by the live stream), quietly otherwise;
 * then saves its images or videos.
 */
async function follow(
  client: Client,
  taskId: string,
  type: string,
  expected: number,
  options: { json: boolean; out?: string },
): Promise<TaskView> {
  // Live previews: a line each (on stderr beside a JSON answer, above the live view on a terminal), and the image where
  // the terminal shows images.
  const onPreview = options.json
    ? createPreviewPrinter({ write: (line) => process.stderr.write(`${line}\n`) })
    : createPreviewPrinter({
        write: (text) => console.log(text),
        protocol: inlineImageProtocol(environment.terminal(), process.stdout.isTTY === true),
      });
  const finish = async (onProgress?: (progress: TaskProgress) => void) => {
    const task = await client.watch(taskId, { onProgress, onPreview: (preview) => void onPreview(preview) });
    if (options.out) await saveItems(client, savedItemsOf(task), options.out);
    return task;
  };
  if (options.json) return finish();
  // Ink and React load only for the live view, not when the CLI starts (no JSX in this file: it would import
  // react/jsx-runtime at start).
  const [{ render }, { createElement }, { TaskWatchApp }, { drawableStdout }] = await Promise.all([
    import('ink'),
    import('react'),
    import('../tui/components/TaskWatchApp.js'),
    import('../tui/terminal-width.js'),
  ]);
  let settled: TaskView | undefined;
  let failure: Error | undefined;
  const app = render(
    createElement(TaskWatchApp, {
      taskId,
      type,
      expected,
      follow: async (onProgress): Promise<TaskView> => {
        settled = await finish(onProgress);
        return settled;
      },
      onDone: (result) => {
        if (result instanceof Error) failure = result;
      },
    }),
    // A terminal that reports 0 columns would get one character per line.
    { stdout: drawableStdout(process.stdout) },
  );
  await app.waitUntilExit().catch(() => undefined);
  if (failure || !settled) throw failure ?? new Error('the watch ended early');
  return settled;
}

/**
 * Follows a task to its end, reports it once (the Ink view's last frame on a terminal, else one
 * JSON document), and answers the exit code it calls for.
 */
export async function followAndReport(
  client: Client,
  taskId: string,
  type: string,
  expected: number,
  options: { json: boolean; out?: string },
): Promise<number> {
  const task = await follow(client, taskId, type, expected, options);
  if (options.json) print(options, task, '');
  return reportTaskFailure(task) ?? exitCodeOf(task);
}

/**
 * A task that is already settled, reported as a followed one is: its images or videos saved to
 * `out`, the task printed, and the exit code it calls for.
 */
export async function reportSettled(
  client: Client,
  task: TaskView,
  options: { json: boolean; out?: string },
): Promise<number> {
  if (options.out) await saveItems(client, savedItemsOf(task), options.out);
  print(options, task, () => describeTask(task));
  return reportTaskFailure(task) ?? exitCodeOf(task);
}

/**
 * What a command that creates a task answers: without --watch, the created task (and how to
 * follow it); with --watch, the task followed to its end and its exit code.
 */
export async function answerCreated(
  client: Client,
  json: boolean,
  created: { taskId: string; estimatedCost?: string; access?: { publicAccessToken: string } },
  follow: { watch?: boolean; out?: string; type: string; expected: number },
): Promise<number | undefined> {
  if (!follow.watch) {
    print({ json }, created, createdText(created));
    return undefined;
  }
  return followAndReport(client, created.taskId, follow.type, follow.expected, { json, out: follow.out });
}

import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import type {
  Client,
  GenerateInput,
  RateInput,
  RemoveBackgroundInput,
  TaskProgress,
  TaskView,
} from '../../client/http-client.js';
import { environment } from '../../config/environment.js';
import { type ImageItem, imagesOf, urlResultsOf, type VideoItem, videosOf } from '../../tui/task-lines.js';
import { clientOf, resolveSources } from '../client-context.js';
import { createdText } from '../created-task.js';
import { EXIT, enumOption, print, UsageError } from '../output.js';
import { paramOption, paramsFromFlags } from '../param-flags.js';
import { createPreviewPrinter, inlineImageProtocol } from '../preview-lines.js';
import { command } from '../run.js';
import { cancelAfterOption, priorityOption, type SchedulingFlags, schedulingOf } from '../scheduling-options.js';
import { describeTask, generateOptions, reportTaskFailure, syncAnswer, taskListQuery } from '../task-report.js';

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

/** Follows a task to its end: the Ink view on a terminal (its progress bar fed by the live stream), quietly otherwise; then saves its images or videos. */
async function follow(
  client: Client,
  taskId: string,
  type: string,
  expected: number,
  options: { json: boolean; out?: string },
): Promise<TaskView> {
  // Live previews: a line each (on stderr beside a JSON answer, above the live view on a terminal), and the image where the terminal shows images.
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
  // Ink and React load only for the live view, not when the CLI starts (no JSX in this file: it would import react/jsx-runtime at start).
  const [{ render }, { createElement }, { TaskWatchApp }, { drawableStdout }] = await Promise.all([
    import('ink'),
    import('react'),
    import('../../tui/components/TaskWatchApp.js'),
    import('../../tui/terminal-width.js'),
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

/** The options of `imgtask generate`, as commander gives them (strings: numbers and choices are checked here, the rest by the server). */
interface GenerateOptions extends SchedulingFlags {
  model?: string;
  size?: string;
  count?: string;
  format?: string;
  quality?: string;
  negative?: string;
  seed?: string;
  magic?: boolean;
  input?: string[];
  rating?: string;
  destination?: string;
  metadata?: string;
  param?: string[];
  watch?: boolean;
  out?: string;
}

/** A client command: the API client, JSON off a terminal, and the shared exit codes. */
export const clientCommand = <Args extends unknown[]>(
  // biome-ignore lint/suspicious/noConfusingVoidType: a command body answers an exit code, or nothing for 0
  run: (client: Client, json: boolean, ...args: Args) => Promise<number | void>,
) => command(async (ctx, ...args: Args) => run(await clientOf(ctx), ctx.json, ...args), { json: 'auto' });

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerClientCommands(program: Command): void {
  program
    .command('generate <prompt>')
    .description('Generate images (local files given with --input are uploaded first)')
    .option('--model <id>', 'a model id or auto')
    .option('--size <size>', 'a preset (square, 16:9, 1:1_4k, …) or auto')
    .option('--count <n>', 'images, 1 to 20')
    .option('--format <format>', 'png, jpg or webp')
    .option('--quality <n>', '1 to 100')
    .option('--negative <prompt>', 'negative prompt')
    .option(
      '--seed <n>',
      "the first image's seed, 0 to 4294967295 (image i gets seed + i; default: chosen at random and reported)",
    )
    .option('--magic', 'enhance the prompt (magic_prompt)')
    .option('--input <url|file>', 'an input image (repeatable)', collect)
    .option('--rating <mode>', 'nsfw_sfw, or a JSON file of custom levels')
    .option('--destination <name>', 'a destination name')
    .option('--metadata <json>', 'metadata as a JSON object')
    .addOption(paramOption('GET /models'))
    .addOption(priorityOption())
    .addOption(cancelAfterOption())
    .option('--watch', 'follow the task until it settles')
    .option('--out <dir>', 'with --watch: save the images here')
    .option('--json', 'print one JSON document')
    .action(
      clientCommand(async (client, json, prompt: string, opts: GenerateOptions) => {
        // Numbers and fixed choices are checked here (nothing is sent when one is wrong); the server checks the rest.
        const { priority, request } = schedulingOf(opts);
        const body: GenerateInput = {
          prompt,
          ...generateOptions(opts),
          ...(priority === undefined ? {} : { priority }),
        };
        if (opts.model) body.model = opts.model;
        if (opts.negative) body.negative_prompt = opts.negative;
        if (opts.magic) body.magic_prompt = true;
        if (opts.destination) body.destination = opts.destination;
        if (opts.metadata) body.metadata = parseJson(opts.metadata, '--metadata') as GenerateInput['metadata'];
        if (opts.rating)
          body.rating =
            opts.rating === 'nsfw_sfw'
              ? { mode: 'nsfw_sfw' }
              : {
                  mode: 'custom',
                  levels: parseJson(
                    await readLevels(opts.rating, '--rating'),
                    '--rating file',
                  ) as RateInput['levels'] & {},
                };
        const parameters = await paramsFromFlags(opts.param, opts.model, client.models);
        if (parameters) body.parameters = parameters;
        if (opts.input?.length) body.inputs = await resolveSources(client, opts.input, 'id');
        const created = await client.generate(body, request);
        if (!opts.watch) return print({ json }, created, createdText(created));
        return followAndReport(client, created.taskId, 'image.generate', body.count ?? 1, { json, out: opts.out });
      }),
    );

  program
    .command('rate <sources...>')
    .description('Rate images (URLs, ids or local files): nsfw_sfw, or custom levels from a JSON file')
    .option('--levels <file>', 'a JSON file of 2 to 7 { value, description } levels (custom mode)')
    .addOption(priorityOption())
    .addOption(cancelAfterOption())
    .option('--async', 'do not wait: answer with the task to poll')
    .option('--json', 'print one JSON document')
    .action(
      clientCommand(
        async (client, json, sources: string[], opts: { levels?: string; async?: boolean } & SchedulingFlags) => {
          const { priority, request } = schedulingOf(opts);
          const levels = opts.levels
            ? (parseJson(await readLevels(opts.levels, '--levels'), '--levels file') as RateInput['levels'])
            : undefined;
          const files = new Map<string, string>();
          const urls = await resolveSources(client, sources, 'id', files);
          const body: RateInput = levels
            ? { mode: 'custom', levels, urls, sync: !opts.async }
            : { mode: 'nsfw_sfw', urls, sync: !opts.async };
          if (priority !== undefined) body.priority = priority;
          return syncAnswer(client, json, files, () => client.rate(body, request));
        },
      ),
    );

  program
    .command('alt <sources...>')
    .description('Alt text for images (URLs, ids or local files)')
    .addOption(priorityOption())
    .addOption(cancelAfterOption())
    .option('--async', 'do not wait: answer with the task to poll')
    .option('--json', 'print one JSON document')
    .action(
      clientCommand(async (client, json, sources: string[], opts: { async?: boolean } & SchedulingFlags) => {
        const { priority, request } = schedulingOf(opts);
        const files = new Map<string, string>();
        const urls = await resolveSources(client, sources, 'id', files);
        return syncAnswer(client, json, files, () =>
          client.alt({ urls, sync: !opts.async, ...(priority === undefined ? {} : { priority }) }, request),
        );
      }),
    );

  program
    .command('remove-bg <source>')
    .description('Remove the background of an image (URL, uploaded img_ id or local file)')
    .option('--format <format>', 'png or webp')
    .option('--destination <name>', 'a destination name')
    .addOption(priorityOption())
    .addOption(cancelAfterOption())
    .option('--watch', 'follow the task until it settles')
    .option('--out <dir>', 'with --watch: save the image here')
    .option('--json', 'print one JSON document')
    .action(
      clientCommand(
        async (
          client,
          json,
          source: string,
          opts: { format?: string; destination?: string; watch?: boolean; out?: string } & SchedulingFlags,
        ) => {
          const format = enumOption(opts.format, '--format', ['png', 'webp']);
          const { priority, request } = schedulingOf(opts);
          const [url] = await resolveSources(client, [source], 'url');
          const body: RemoveBackgroundInput = { url };
          if (format) body.output = { format };
          if (opts.destination) body.destination = opts.destination;
          if (priority !== undefined) body.priority = priority;
          const created = await client.removeBackground(body, request);
          if (!opts.watch) return print({ json }, created, createdText(created));
          return followAndReport(client, created.taskId, 'image.remove_background', 1, { json, out: opts.out });
        },
      ),
    );

  program
    .command('upload <files...>')
    .description('Upload 1 to 10 images; prints their ids and service URLs')
    .option('--json', 'print one JSON document')
    .action(
      clientCommand(async (client, json, files: string[]) => {
        for (const file of files) if (!existsSync(file)) throw new UsageError(`no file ${file}`);
        const uploaded = await client.upload(
          await Promise.all(files.map(async (name) => ({ name, data: await readFile(name) }))),
        );
        print({ json }, uploaded, uploaded.map((f) => `${f.id}  ${f.size}  ${f.service_url}`).join('\n'));
      }),
    );

  const tasks = program.command('tasks').description('Tasks: list, show, watch, cancel, delete');
  tasks
    .command('list')
    .description("The account's tasks, newest first")
    .option('--status <status>', 'pending, completed or failed')
    .option('--type <type>', 'a task type')
    .option('--limit <n>', '1 to 100', '20')
    .option('--json', 'print one JSON document')
    .action(
      clientCommand(async (client, json, opts: { status?: string; type?: string; limit: string }) => {
        const page = await client.tasks(taskListQuery(opts));
        print(
          { json },
          page,
          page.tasks.map((t) => `${t.id}  ${t.type.padEnd(24)} ${t.status.padEnd(9)} ${t.cost ?? ''}`).join('\n') ||
            'no tasks',
        );
      }),
    );
  tasks
    .command('show <id>')
    .description('One task (a PAT given as --key reads its status and result)')
    .option('--json', 'print one JSON document')
    .action(
      clientCommand(async (client, json, id: string) => {
        const task = await client.task(id);
        print({ json }, task, describeTask(task));
      }),
    );
  tasks
    .command('watch <id>')
    .description('Follow a task until it settles (works with a PAT as --key)')
    .option('--out <dir>', 'save its images or videos here')
    .option('--json', 'print one JSON document')
    .action(
      clientCommand(async (client, json, id: string, opts: { out?: string }) => {
        if ((await client.status(id)) === 'pending')
          return followAndReport(client, id, 'task', 1, { json, out: opts.out });
        const task = await client.task(id);
        if (opts.out) await saveItems(client, savedItemsOf(task), opts.out);
        print({ json }, task, () => describeTask(task));
        return reportTaskFailure(task) ?? exitCodeOf(task);
      }),
    );
  tasks
    .command('cancel <id>')
    .description('Cancel a pending task (API key with tasks:cancel); prints its final status')
    .option('--json', 'print one JSON document')
    .action(
      clientCommand(async (client, json, id: string) => {
        const task = await client.cancel(id);
        print({ json }, task, () => `${task.id} cancelled: ${task.status}, charged ${task.cost} USD`);
      }),
    );
  tasks
    .command('delete <id>')
    .description(
      "Delete a task's outputs and text (API key with tasks:cancel; a pending task is cancelled first); its cost and status are kept",
    )
    .option('--json', 'print one JSON document')
    .action(
      clientCommand(async (client, json, id: string) => {
        const task = await client.deleteTask(id);
        print(
          { json },
          task,
          () =>
            `${task.id} deleted: its outputs, prompt, metadata and result are gone (${task.status}, charged ${task.cost} USD, kept for accounting)`,
        );
      }),
    );
}

async function readLevels(file: string, option: string): Promise<string> {
  if (!existsSync(file))
    throw new UsageError(
      `${option} must be ${option === '--rating' ? 'nsfw_sfw or ' : ''}a JSON file of custom levels; there is no file ${file}`,
    );
  return readFile(file, 'utf8');
}

function parseJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${label} is not valid JSON`);
  }
}

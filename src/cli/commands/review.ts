import type { Command } from 'commander';
import { ApiError, type Client, type ReviewInput, type SyncAnswer } from '../../client/http-client.js';
import { plainText, type ReviewView, reviewLines } from '../../tui/task-lines.js';
import { clientOf, resolveSources } from '../client-context.js';
import { EXIT, print, UsageError } from '../output.js';
import { command } from '../run.js';
import { cancelAfterOption, priorityOption, type SchedulingFlags, schedulingOf } from '../scheduling-options.js';
import { describeTask, reportTaskFailure } from '../task-report.js';

/** Criteria one review may ask for (the API's limit, checked here before anything is sent). */
const MAX_CRITERIA = 10;

const collect = (value: string, previous: string[] = []) => [...previous, value];

type ReviewData = {
  task: { id: string; status: string; cost?: string };
  result?: ReviewView;
  access?: { publicAccessToken: string };
};

/**
 * Sends the review and reports its answer: the verdict, score and findings (exit 0 pass, 4
 * fail), the task to poll (202), or, when the task failed (500 UNKNOWN_ERROR naming it), the
 * failed task with its errors on stderr and exit 3.
 */
async function reportReview(
  client: Client,
  json: boolean,
  send: () => Promise<SyncAnswer<ReviewData>>,
): Promise<number> {
  let answer: SyncAnswer<ReviewData>;
  try {
    answer = await send();
  } catch (err) {
    const failed =
      err instanceof ApiError && err.code === 'UNKNOWN_ERROR'
        ? /\btask (tsk_[0-9A-Za-z]+) failed\b/.exec(err.message)
        : null;
    if (!failed) throw err;
    const task = await client.task(failed[1]);
    print({ json }, task, () => describeTask(task));
    return reportTaskFailure(task) ?? EXIT.taskFailed;
  }
  const { data } = answer;
  if (answer.status === 202 || !data.result) {
    print({ json }, data, `task ${data.task.id} pending: imgtask tasks watch ${data.task.id}`);
    return EXIT.ok;
  }
  const review = data.result;
  print({ json }, data, () =>
    plainText([...reviewLines(review), [{ text: `task ${data.task.id} cost ${data.task.cost} USD` }]]),
  );
  return review.verdict === 'pass' ? EXIT.ok : EXIT.itemsFailed;
}

export function registerReviewCommand(program: Command): void {
  program
    .command('review <source>')
    .description(
      'Review an image (URL, id or local file): resolution, focus, exposure, safety, text; with a vision provider, the prompt and free-text criteria',
    )
    .option('--prompt <text>', 'what the image was meant to show')
    .option('--criteria <text>', 'a criterion, e.g. "no text" or "product centred" (repeatable, at most 10)', collect)
    .addOption(priorityOption())
    .addOption(cancelAfterOption())
    .option('--async', 'do not wait: answer with the task to poll')
    .option('--json', 'print one JSON document')
    .action(
      command(
        async (
          ctx,
          source: string,
          opts: { prompt?: string; criteria?: string[]; async?: boolean } & SchedulingFlags,
        ) => {
          const criteria = opts.criteria ?? [];
          if (criteria.length > MAX_CRITERIA)
            throw new UsageError(`--criteria may be given at most ${MAX_CRITERIA} times, not ${criteria.length}`);
          for (const criterion of criteria) if (!criterion.trim()) throw new UsageError('--criteria must not be empty');
          const { priority, request } = schedulingOf(opts);
          const client = await clientOf(ctx);
          const [url] = await resolveSources(client, [source], 'id');
          const body: ReviewInput = { url, sync: !opts.async };
          if (opts.prompt !== undefined) body.prompt = opts.prompt;
          if (criteria.length) body.criteria = criteria;
          if (priority !== undefined) body.priority = priority;
          return reportReview(client, ctx.json, () => client.review(body, request));
        },
        { json: 'auto' },
      ),
    );
}

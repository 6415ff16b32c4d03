import type { Command } from 'commander';
import type { Client, ReviewInput, SyncAnswer } from '../../client/http-client.js';
import { plainText, type ReviewView, reviewLines } from '../../tui/task-lines.js';
import { clientOf, resolveSources } from '../client-context.js';
import { syncOptions } from '../create-options.js';
import { EXIT, print, UsageError } from '../output.js';
import { command } from '../run.js';
import { type SchedulingFlags, schedulingOf } from '../scheduling-options.js';
import { describeTask, printPending, reportTaskFailure, sendWaiting } from '../task-report.js';

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
  const sent = await sendWaiting(client, send);
  if ('failed' in sent) {
    const task = sent.failed;
    print({ json }, task, () => describeTask(task));
    return reportTaskFailure(task) ?? EXIT.taskFailed;
  }
  const { data } = sent.answer;
  if (sent.answer.status === 202 || !data.result) return printPending(json, data);
  const review = data.result;
  print({ json }, data, () =>
    plainText([...reviewLines(review), [{ text: `task ${data.task.id} cost ${data.task.cost} USD` }]]),
  );
  return review.verdict === 'pass' ? EXIT.ok : EXIT.itemsFailed;
}

export function registerReviewCommand(program: Command): void {
  const review = program
    .command('review <source>')
    .description(
      'Review an image (URL, id or local file): resolution, focus, exposure, safety, text; with a vision provider, the prompt and free-text criteria',
    )
    .option('--prompt <text>', 'what the image was meant to show')
    .option('--criteria <text>', 'a criterion, e.g. "no text" or "product centred" (repeatable, at most 10)', collect);
  syncOptions(review).action(
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

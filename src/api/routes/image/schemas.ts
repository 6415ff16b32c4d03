import { z } from 'zod';
import { dataOf, Usd } from '../../common-schemas.js';

/**
 * The answer of an asynchronous create: the task id, and its PAT when enabled
 * (docs/api/images.md#generate-post-imagegenerate).
 */
export const CreatedTaskResponse = dataOf(
  z.object({
    taskId: z.string(),
    estimatedCost: Usd.optional().describe('USD reserved (remove-background)'),
    access: z
      .object({ publicAccessToken: z.string().describe('a pat_ token for this task, valid one hour') })
      .optional(),
  }),
);
export type CreatedTaskResponse = z.infer<typeof CreatedTaskResponse>;

/**
 * The answer of rate and alt (docs/api/images.md#rate-and-alt-post-imagerate-post-imagealt): with the results when the
 * task finished within the
 * sync timeout (200), or only the pending task to poll (202).
 */
export const syncAnswer = <Results extends z.ZodType>(results: Results) =>
  dataOf(
    z.object({
      task: z.object({ id: z.string(), status: z.enum(['pending', 'completed']), cost: Usd.optional() }),
      results: results.optional().describe('one entry per URL, in the order sent; absent on 202'),
    }),
  );

/** The 202 answer of rate and alt: `sync: false`, or the task still pending after the sync timeout; poll it. */
export const PendingTaskAnswer = dataOf(z.object({ task: z.object({ id: z.string(), status: z.literal('pending') }) }));

import type { TaskService } from '../../engine/task-service.js';
import { verdictsIn } from './gallery-items.js';

/** How many of the newest reviews are looked through for those that name a task's images. */
const REVIEWS_LOOKED_AT = 50;

/**
 * The review verdicts, by image id, of images made by a task created at `since`: a review names
 * its image by URL or id, so the newest reviews made since are looked through, not all of them.
 */
export async function verdictsSince(
  tasks: Pick<TaskService, 'list'>,
  accountId: string,
  since: string,
): Promise<Map<string, 'pass' | 'fail'>> {
  const reviews = await tasks.list(accountId, {
    limit: REVIEWS_LOOKED_AT,
    type: 'image.review',
    status: 'completed',
    createdAfter: since,
  });
  return verdictsIn(reviews.tasks);
}

import { BILLING_THRESHOLD_EVENT, taskEventKind } from '../domain/event-kinds.js';
import type { AnyTaskType } from '../engine/task-registry.js';
import { AltResult, createAltType } from './image-alt.js';
import { createGenerateType, GenerateResult } from './image-generate.js';
import { createRateType, RateResult } from './image-rate.js';
import { createRemoveBackgroundType, RemoveBackgroundResult } from './image-remove-background.js';
import { createReviewType, ReviewResult } from './image-review.js';
import type { ImageTaskDeps } from './task-type-deps.js';
import { createVideoType, VideoResult } from './video-generate.js';

export type { ImageTaskDeps } from './task-type-deps.js';

/**
 * Every built-in task type, in one list: its name, the schema of its result (the API
 * describes and checks task results with it) and the factory of its definition. A new type
 * is one module, one entry here, and its create route.
 */
export const TASK_MODULES = [
  { type: 'image.generate', result: GenerateResult, create: createGenerateType },
  { type: 'image.rate', result: RateResult, create: createRateType },
  { type: 'image.alt', result: AltResult, create: createAltType },
  { type: 'image.remove_background', result: RemoveBackgroundResult, create: createRemoveBackgroundType },
  { type: 'video.generate', result: VideoResult, create: createVideoType },
  { type: 'image.review', result: ReviewResult, create: createReviewType },
] as const;

/**
 * Webhook event kinds (docs/api/webhooks.md): `all`, `task.completed|failed`, and each built-in
 * type's `task.<type>.completed|failed` (for background removal, ours); then ours, an addition to
 * the interface: `billing.threshold_reached` (budget alerts, docs/api/usage.md#budget-alerts).
 */
export const EVENT_KINDS = [
  'all',
  'task.completed',
  'task.failed',
  ...TASK_MODULES.flatMap(({ type }) => [taskEventKind(type, 'completed'), taskEventKind(type, 'failed')]),
  BILLING_THRESHOLD_EVENT,
] as [string, ...string[]];

/** The definitions of every built-in type, wired to the running service. */
export function createTaskTypes(deps: ImageTaskDeps): AnyTaskType[] {
  return TASK_MODULES.map((module) => {
    const definition: AnyTaskType = module.create(deps);
    if (definition.type !== module.type) throw new Error(`task module ${module.type} defines ${definition.type}`);
    return definition;
  });
}

import type { AnyTaskType } from '../services/task-types.js';
import type { ImageTaskDeps } from './deps.js';
import { createAltType } from './image-alt.js';
import { createGenerateType } from './image-generate.js';
import { createRateType } from './image-rate.js';
import { createRemoveBackgroundType } from './image-remove-background.js';

export type { ImageTaskDeps } from './deps.js';

/** Every built-in task type, in one list: a new type is one module here plus its create route. */
export function createTaskTypes(deps: ImageTaskDeps): AnyTaskType[] {
  return [createGenerateType(deps), createRateType(deps), createAltType(deps), createRemoveBackgroundType(deps)];
}

/**
 * The flags of generate and tasks list that are numbers or fixed choices, checked here so nothing is sent when one is
 * wrong.
 */
import type { GenerateInput, Task } from '../client/http-client.js';
import { SIZE_PRESETS } from '../domain/sizes.js';
import { TASK_STATUSES } from '../domain/task-status.js';
import { enumOption, intOption } from './output.js';

/** Images one generate task may make (the API's limit). */
const MAX_COUNT = 20;
/** The task types `tasks list --type` filters on (a record of them, so a type the API gains fails to compile here). */
const TASK_TYPES = Object.keys({
  'image.generate': 1,
  'image.remove_background': 1,
  'image.rate': 1,
  'image.alt': 1,
  'image.review': 1,
  'video.generate': 1,
} satisfies Record<Task['type'], 1>) as Task['type'][];

/** The largest seed: seeds are 32-bit. */
const MAX_SEED = 2 ** 32 - 1;

/** The generate options that are numbers or fixed choices, checked here before anything is sent. */
export function generateOptions(opts: {
  size?: string;
  count?: string;
  format?: string;
  quality?: string;
  seed?: string;
}): Pick<GenerateInput, 'size' | 'count' | 'output' | 'seed'> {
  const size = enumOption(opts.size, '--size', SIZE_PRESETS);
  const seed = intOption(opts.seed, '--seed', 0, MAX_SEED);
  const count = intOption(opts.count, '--count', 1, MAX_COUNT);
  const format = enumOption(opts.format, '--format', ['png', 'jpg', 'webp']);
  const quality = intOption(opts.quality, '--quality', 1, 100);
  return {
    ...(size === undefined ? {} : { size: size as GenerateInput['size'] }),
    ...(count === undefined ? {} : { count }),
    ...(seed === undefined ? {} : { seed }),
    ...(format === undefined && quality === undefined
      ? {}
      : { output: { ...(format ? { format } : {}), ...(quality === undefined ? {} : { quality }) } }),
  };
}

/** The query of `tasks list`, checked here. */
export function taskListQuery(opts: { status?: string; type?: string; limit: string }): {
  status?: string;
  type?: string;
  limit?: number;
} {
  return {
    status: enumOption(opts.status, '--status', TASK_STATUSES),
    type: enumOption(opts.type, '--type', TASK_TYPES),
    limit: intOption(opts.limit, '--limit', 1, 100),
  };
}

import { Option } from 'commander';
import type { CreateOptions } from '../client/http-client.js';
import { PRIORITY } from '../domain/scheduling.js';
import { parseCompoundDuration } from '../domain/time.js';
import { intOption, UsageError } from './output.js';

/**
 * The deadline a create may ask for, as the server bounds its Cancel-After header
 * (docs/api/tasks.md#deadlines-cancel-after). The server's constant lives in src/api, which the CLI
 * does not import.
 */
const CANCEL_AFTER_MS = { min: 1000, max: 24 * 3_600_000 } as const;

/** --priority and --cancel-after as commander gives them. */
export interface SchedulingFlags {
  priority?: string;
  cancelAfter?: string;
}

/** What --priority and --cancel-after give a create: a body field and a header. */
export interface Scheduling {
  priority?: number;
  request: CreateOptions;
}

/** --priority and --cancel-after of a command that creates a task (a new Option each: commander keeps one per command). */
export const priorityOption = (): Option =>
  new Option('--priority <n>', `${PRIORITY.min} to ${PRIORITY.max}: higher starts first in its lane (default ${PRIORITY.default}; at most the key's maxPriority)`);
export const cancelAfterOption = (): Option => new Option('--cancel-after <duration>', 'a deadline such as 30s, 5m or 1h30m (1s to 24h): what has not finished by then fails TASK_EXPIRED, free');

/** --priority and --cancel-after checked here, so nothing is sent when one is wrong (UsageError, exit 2). */
export function schedulingOf(opts: SchedulingFlags): Scheduling {
  const priority = intOption(opts.priority, '--priority', PRIORITY.min, PRIORITY.max);
  return { ...(priority === undefined ? {} : { priority }), request: cancelAfterOf(opts.cancelAfter) };
}

function cancelAfterOf(text: string | undefined): CreateOptions {
  if (text === undefined) return {};
  const ms = parseCompoundDuration(text);
  if (ms === null || ms < CANCEL_AFTER_MS.min || ms > CANCEL_AFTER_MS.max) {
    throw new UsageError(`--cancel-after must be a duration from 1s to 24h, such as 30s, 5m or 1h30m (not "${text}")`);
  }
  return { cancelAfter: text.trim() };
}

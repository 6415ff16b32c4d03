import { Option } from 'commander';
import type { CreateOptions } from '../client/http-client.js';
import { PRIORITY, parseCancelAfter } from '../domain/scheduling.js';
import { intOption, UsageError } from './output.js';

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

/**
 * --priority and --cancel-after of a command that creates a task (a new Option each: commander keeps one per command).
 */
export const priorityOption = (): Option =>
  new Option(
    '--priority <n>',
    `${PRIORITY.min} to ${PRIORITY.max}: higher starts first in its lane (default ${PRIORITY.default}; at most the key's maxPriority)`,
  );
export const cancelAfterOption = (): Option =>
  new Option(
    '--cancel-after <duration>',
    'a deadline such as 30s, 5m or 1h30m (1s to 24h): what has not finished by then fails TASK_EXPIRED, free',
  );

/** --priority and --cancel-after checked here, so nothing is sent when one is wrong (UsageError, exit 2). */
export function schedulingOf(opts: SchedulingFlags): Scheduling {
  const priority = intOption(opts.priority, '--priority', PRIORITY.min, PRIORITY.max);
  return { ...(priority === undefined ? {} : { priority }), request: cancelAfterOf(opts.cancelAfter) };
}

function cancelAfterOf(text: string | undefined): CreateOptions {
  if (text === undefined) return {};
  const parsed = parseCancelAfter(text);
  if ('problem' in parsed) throw new UsageError(`--cancel-after: ${parsed.problem}`);
  return { cancelAfter: text.trim() };
}

import type { Command } from 'commander';
import { cancelAfterOption, priorityOption } from './scheduling-options.js';

/**
 * The options every command that creates a followable task ends with (generate, remove-bg,
 * video): scheduling, --watch, --out (where the `saved` outputs go) and --json, in that order.
 */
export const followOptions = (command: Command, saved: string): Command =>
  command
    .addOption(priorityOption())
    .addOption(cancelAfterOption())
    .option('--watch', 'follow the task until it settles')
    .option('--out <dir>', `with --watch: save the ${saved} here`)
    .option('--json', 'print one JSON document');

/**
 * The options every command whose task answers at once ends with (rate, alt, review):
 * scheduling, --async and --json, in that order.
 */
export const syncOptions = (command: Command): Command =>
  command
    .addOption(priorityOption())
    .addOption(cancelAfterOption())
    .option('--async', 'do not wait: answer with the task to poll')
    .option('--json', 'print one JSON document');

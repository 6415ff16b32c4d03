import type { Command } from 'commander';
import type { RateInput } from '../../client/http-client.js';
import { clientCommand } from '../client-command.js';
import { resolveSources } from '../client-context.js';
import { syncOptions } from '../create-options.js';
import { levelsFile } from '../levels-file.js';
import { type SchedulingFlags, schedulingOf } from '../scheduling-options.js';
import { syncAnswer } from '../task-report.js';

export function registerRateCommand(program: Command): void {
  const rate = program
    .command('rate <sources...>')
    .description('Rate images (URLs, ids or local files): nsfw_sfw, or custom levels from a JSON file')
    .option('--levels <file>', 'a JSON file of 2 to 7 { value, description } levels (custom mode)');
  syncOptions(rate).action(
    clientCommand(
      async (client, json, sources: string[], opts: { levels?: string; async?: boolean } & SchedulingFlags) => {
        const { priority, request } = schedulingOf(opts);
        const levels = opts.levels ? ((await levelsFile(opts.levels, '--levels')) as RateInput['levels']) : undefined;
        const files = new Map<string, string>();
        const urls = await resolveSources(client, sources, 'id', files);
        const body: RateInput = levels
          ? { mode: 'custom', levels, urls, sync: !opts.async }
          : { mode: 'nsfw_sfw', urls, sync: !opts.async };
        if (priority !== undefined) body.priority = priority;
        return syncAnswer(client, json, files, () => client.rate(body, request));
      },
    ),
  );
}

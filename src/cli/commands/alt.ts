import type { Command } from 'commander';
import { clientCommand } from '../client-command.js';
import { resolveSources } from '../client-context.js';
import { syncOptions } from '../create-options.js';
import { type SchedulingFlags, schedulingOf } from '../scheduling-options.js';
import { syncAnswer } from '../task-report.js';

export function registerAltCommand(program: Command): void {
  const alt = program.command('alt <sources...>').description('Alt text for images (URLs, ids or local files)');
  syncOptions(alt).action(
    clientCommand(async (client, json, sources: string[], opts: { async?: boolean } & SchedulingFlags) => {
      const { priority, request } = schedulingOf(opts);
      const files = new Map<string, string>();
      const urls = await resolveSources(client, sources, 'id', files);
      return syncAnswer(client, json, files, () =>
        client.alt({ urls, sync: !opts.async, ...(priority === undefined ? {} : { priority }) }, request),
      );
    }),
  );
}

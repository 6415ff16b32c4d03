import type { Command } from 'commander';
import type { RemoveBackgroundInput } from '../../client/http-client.js';
import { clientCommand } from '../client-command.js';
import { resolveSources } from '../client-context.js';
import { followOptions } from '../create-options.js';
import { enumOption } from '../output.js';
import { type SchedulingFlags, schedulingOf } from '../scheduling-options.js';
import { answerCreated } from '../task-follow.js';

interface RemoveBgOptions extends SchedulingFlags {
  format?: string;
  destination?: string;
  watch?: boolean;
  out?: string;
}

export function registerRemoveBgCommand(program: Command): void {
  const removeBg = program
    .command('remove-bg <source>')
    .description('Remove the background of an image (URL, uploaded img_ id or local file)')
    .option('--format <format>', 'png or webp')
    .option('--destination <name>', 'a destination name');
  followOptions(removeBg, 'image').action(
    clientCommand(async (client, json, source: string, opts: RemoveBgOptions) => {
      const format = enumOption(opts.format, '--format', ['png', 'webp']);
      const { priority, request } = schedulingOf(opts);
      const [url] = await resolveSources(client, [source], 'url');
      const body: RemoveBackgroundInput = { url };
      if (format) body.output = { format };
      if (opts.destination) body.destination = opts.destination;
      if (priority !== undefined) body.priority = priority;
      const created = await client.removeBackground(body, request);
      return answerCreated(client, json, created, { ...opts, type: 'image.remove_background', expected: 1 });
    }),
  );
}

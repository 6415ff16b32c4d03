import type { Command } from 'commander';
import type { GenerateInput, RateInput } from '../../client/http-client.js';
import { clientCommand } from '../client-command.js';
import { resolveSources } from '../client-context.js';
import { followOptions } from '../create-options.js';
import { levelsFile } from '../levels-file.js';
import { jsonOption } from '../output.js';
import { paramOption, paramsFromFlags } from '../param-flags.js';
import { type SchedulingFlags, schedulingOf } from '../scheduling-options.js';
import { generateOptions } from '../task-flags.js';
import { answerCreated } from '../task-follow.js';

/**
 * The options of `imgtask generate`, as commander gives them (strings: numbers and choices are checked here, the rest
 * by the server).
 */
interface GenerateOptions extends SchedulingFlags {
  model?: string;
  size?: string;
  count?: string;
  format?: string;
  quality?: string;
  negative?: string;
  seed?: string;
  magic?: boolean;
  input?: string[];
  rating?: string;
  destination?: string;
  metadata?: string;
  param?: string[];
  watch?: boolean;
  out?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** --rating: nsfw_sfw, or the custom levels in a JSON file. */
const ratingOf = async (rating: string): Promise<GenerateInput['rating']> =>
  rating === 'nsfw_sfw'
    ? { mode: 'nsfw_sfw' }
    : { mode: 'custom', levels: (await levelsFile(rating, '--rating')) as RateInput['levels'] & {} };

export function registerGenerateCommand(program: Command): void {
  const generate = program
    .command('generate <prompt>')
    .description('Generate images (local files given with --input are uploaded first)')
    .option('--model <id>', 'a model id or auto')
    .option('--size <size>', 'a preset (square, 16:9, 1:1_4k, …) or auto')
    .option('--count <n>', 'images, 1 to 20')
    .option('--format <format>', 'png, jpg or webp')
    .option('--quality <n>', '1 to 100')
    .option('--negative <prompt>', 'negative prompt')
    .option(
      '--seed <n>',
      "the first image's seed, 0 to 4294967295 (image i gets seed + i; default: chosen at random and reported)",
    )
    .option('--magic', 'enhance the prompt (magic_prompt)')
    .option('--input <url|file>', 'an input image (repeatable)', collect)
    .option('--rating <mode>', 'nsfw_sfw, or a JSON file of custom levels')
    .option('--destination <name>', 'a destination name')
    .option('--metadata <json>', 'metadata as a JSON object')
    .addOption(paramOption('GET /models'));
  followOptions(generate, 'images').action(
    clientCommand(async (client, json, prompt: string, opts: GenerateOptions) => {
      // Numbers and fixed choices are checked here (nothing is sent when one is wrong); the server checks the rest.
      const { priority, request } = schedulingOf(opts);
      const body: GenerateInput = {
        prompt,
        ...generateOptions(opts),
        ...(priority === undefined ? {} : { priority }),
      };
      if (opts.model) body.model = opts.model;
      if (opts.negative) body.negative_prompt = opts.negative;
      if (opts.magic) body.magic_prompt = true;
      if (opts.destination) body.destination = opts.destination;
      if (opts.metadata) body.metadata = jsonOption(opts.metadata, '--metadata') as GenerateInput['metadata'];
      if (opts.rating) body.rating = await ratingOf(opts.rating);
      const parameters = await paramsFromFlags(opts.param, opts.model, client.models);
      if (parameters) body.parameters = parameters;
      if (opts.input?.length) body.inputs = await resolveSources(client, opts.input, 'id');
      const created = await client.generate(body, request);
      return answerCreated(client, json, created, {
        ...opts,
        type: 'image.generate',
        expected: body.count ?? 1,
      });
    }),
  );
}

import type { Command } from 'commander';
import type { VideoInput } from '../../client/http-client.js';
import { SIZE_PRESETS } from '../../domain/sizes.js';
import { clientCommand } from '../client-command.js';
import { resolveSources } from '../client-context.js';
import { followOptions } from '../create-options.js';
import { enumOption, intOption, jsonOption } from '../output.js';
import { paramOption, paramsFromFlags } from '../param-flags.js';
import { type Scheduling, type SchedulingFlags, schedulingOf } from '../scheduling-options.js';
import { answerCreated } from '../task-follow.js';

/** The API's limits on a video.generate request, checked here so nothing is sent when one is wrong. */
const LIMITS = { count: [1, 4], durationS: [1, 10], fps: [8, 30] } as const;
/** Size presets as for images, without the 4K ones (no video model makes 4K frames). */
const VIDEO_SIZES = SIZE_PRESETS.filter((preset) => !preset.endsWith('_4k'));

/**
 * The options of `imgtask video`, as commander gives them (strings: numbers and choices are checked here, the rest by
 * the server).
 */
interface VideoOptions extends SchedulingFlags {
  model?: string;
  count?: string;
  duration?: string;
  fps?: string;
  size?: string;
  format?: string;
  negative?: string;
  seed?: string;
  input?: string;
  destination?: string;
  metadata?: string;
  param?: string[];
  watch?: boolean;
  out?: string;
}

/** The request `imgtask video` sends; UsageError (exit 2, nothing sent) for a number or choice out of range. */
function videoRequest(prompt: string, opts: VideoOptions): { body: VideoInput; request: Scheduling['request'] } {
  const { priority, request } = schedulingOf(opts);
  const body: VideoInput = { prompt };
  if (priority !== undefined) body.priority = priority;
  const count = intOption(opts.count, '--count', ...LIMITS.count);
  const duration = intOption(opts.duration, '--duration', ...LIMITS.durationS);
  const fps = intOption(opts.fps, '--fps', ...LIMITS.fps);
  const size = enumOption(opts.size, '--size', VIDEO_SIZES);
  const format = enumOption(opts.format, '--format', ['mp4', 'webp']);
  const seed = intOption(opts.seed, '--seed', 0, 2 ** 32 - 1);
  if (seed !== undefined) body.seed = seed;
  if (count !== undefined) body.count = count;
  if (duration !== undefined) body.duration_s = duration;
  if (fps !== undefined) body.fps = fps;
  if (size !== undefined) body.size = size as VideoInput['size'];
  if (format !== undefined) body.format = format;
  if (opts.model) body.model = opts.model;
  if (opts.negative) body.negative_prompt = opts.negative;
  if (opts.destination) body.destination = opts.destination;
  if (opts.metadata) body.metadata = jsonOption(opts.metadata, '--metadata') as VideoInput['metadata'];
  return { body, request };
}

export function registerVideoCommand(program: Command): void {
  const video = program
    .command('video <prompt>')
    .description('Generate videos (a local file given with --input is uploaded first)')
    .option('--model <id>', 'a video model id or auto')
    .option('--count <n>', `videos, ${LIMITS.count[0]} to ${LIMITS.count[1]}`)
    .option('--duration <s>', `seconds per video, ${LIMITS.durationS[0]} to ${LIMITS.durationS[1]}`)
    .option('--fps <n>', `frames per second, ${LIMITS.fps[0]} to ${LIMITS.fps[1]}`)
    .option('--size <preset>', 'a preset (square, 16:9, …) or auto; no 4K')
    .option('--format <format>', 'mp4 (H.264) or webp (animated)')
    .option('--negative <prompt>', 'negative prompt')
    .option(
      '--seed <n>',
      "the first video's seed, 0 to 4294967295 (video i gets seed + i; default: chosen at random and reported)",
    )
    .option('--input <url|file>', 'one input image, the first frame')
    .option('--destination <name>', 'a destination name')
    .option('--metadata <json>', 'metadata as a JSON object')
    .addOption(paramOption('GET /video/models'));
  followOptions(video, 'videos').action(
    clientCommand(async (client, json, prompt: string, opts: VideoOptions) => {
      const { body, request } = videoRequest(prompt, opts);
      const parameters = await paramsFromFlags(opts.param, opts.model, client.videoModels);
      if (parameters) body.parameters = parameters;
      if (opts.input) body.inputs = await resolveSources(client, [opts.input], 'id');
      const created = await client.video(body, request);
      return answerCreated(client, json, created, { ...opts, type: 'video.generate', expected: body.count ?? 1 });
    }),
  );
}

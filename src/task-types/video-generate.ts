import { z } from 'zod';
import { parseBinding } from '../domain/comfy-workflows.js';
import { AppError } from '../domain/errors.js';
import { formatUsd, type Micros, parseUsd } from '../domain/money.js';
import { ASPECT_RATIOS, SIZE_PRESETS, sizeText } from '../domain/sizes.js';
import { MAX_ATTEMPTS, ProviderError } from '../domain/task-status.js';
import type { TaskTypeDefinition } from '../engine/task-registry.js';
import type { SourceImage, VideoParams } from '../providers/provider-types.js';
import {
  bodyPerConfig,
  checkGenerationRequest,
  checkNegativePrompt,
  itemResults,
  loadInputs,
  modelLane,
  modelProvider,
  plannedModel,
  resolveModel,
  storedItem,
} from './generation.js';
import { checkRunSeeds } from './image-runs.js';
import { generationOrigin } from './output-origin.js';
import { ParametersField, parameterPrice, providerParameters, WorkflowField } from './parameter-fields.js';
import {
  AccessOptions,
  DestinationName,
  FreeText,
  InputEntry,
  LIMITS,
  Metadata,
  Priority,
  WebhookOptions,
} from './request-parts.js';
import { DestinationOutcome, ItemError, Provenance, UsdText } from './result-parts.js';
import { baseSeed, ItemSeed, itemSeed, SeedField } from './seeds.js';
import type { ImageTaskDeps } from './task-type-deps.js';
import { videoOutput } from './video-output.js';
import { videoDimensions } from './video-size.js';

/** Sizes as for images, without the 4K presets (no video model makes 4K frames). */
const VIDEO_SIZE_PRESETS = SIZE_PRESETS.filter((preset) => !preset.endsWith('_4k')) as [string, ...string[]];
const VideoSize = z.union([
  z.enum(VIDEO_SIZE_PRESETS),
  z.object({ type: z.literal('aspect_ratio'), aspectRatio: z.enum(ASPECT_RATIOS) }),
  z.object({ type: z.literal('auto') }),
]);

/**
 * POST /video/generate. Built per set of video model ids: an unknown id fails the schema. The task keeps the body as it
 * is.
 */
export function videoBody(modelIds: readonly string[]) {
  return z.object({
    prompt: FreeText.min(1).max(LIMITS.prompt),
    negative_prompt: FreeText.min(1).max(LIMITS.prompt).optional(),
    model: z.enum(['auto', ...modelIds] as [string, ...string[]]).default('auto'),
    count: z.number().int().min(1).max(LIMITS.videoCount).default(1),
    seed: SeedField,
    parameters: ParametersField,
    workflow: WorkflowField,
    duration_s: z.number().int().min(1).max(LIMITS.videoSeconds).default(4).describe('seconds of footage per video'),
    fps: z.number().int().min(LIMITS.videoFps[0]).max(LIMITS.videoFps[1]).default(24),
    size: VideoSize.default('auto').describe(
      'a preset or aspect ratio, as for images (no 4K); scaled down to fit the model’s largest frame',
    ),
    inputs: z.array(InputEntry).max(LIMITS.videoInputs).default([]).describe('at most one image: the first frame'),
    format: z.enum(['mp4', 'webp']).default('mp4').describe('mp4: H.264; webp: animated WebP'),
    webhook: WebhookOptions.optional(),
    destination: DestinationName.optional(),
    metadata: Metadata.optional(),
    access: AccessOptions.optional(),
    priority: Priority,
  });
}
export type VideoBody = z.infer<ReturnType<typeof videoBody>>;

/**
 * One video item: made (and charged), or failed on its own while the task completes
 * (docs/api/videos.md#generate-post-videogenerate).
 */
const GeneratedVideo = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('success'),
    id: z.string(),
    url: z
      .string()
      .nullable()
      .describe(
        'the destination URL when one was named, else the service URL; null when delivered only to a destination that has none',
      ),
    service_url: z.string(),
    size: z.string().describe('{width}x{height}'),
    duration_s: z.number().describe('seconds of footage, as read from the file'),
    fps: z.number(),
    format: z.enum(['mp4', 'webp']),
    cost: UsdText,
    seed: ItemSeed,
    destination: DestinationOutcome.optional(),
    provenance: Provenance,
  }),
  z.object({ status: z.literal('failed'), error: ItemError }),
]);

/** The task's result: the resolved model and one item per video. */
export const VideoResult = z.object({ model: z.string(), videos: z.array(GeneratedVideo) });

/**
 * Whether the frames binding reaches the graph run: the model's own workflow (checked at load), or a posted graph
 * holding that node input.
 */
function framesBound(binding: string | undefined, posted: Record<string, unknown> | undefined): boolean {
  if (!binding) return false;
  if (!posted) return true;
  const target = parseBinding(binding);
  const inputs = target && (posted[target.node] as { inputs?: Record<string, unknown> } | undefined)?.inputs;
  return !!target && !!inputs && Object.hasOwn(inputs, target.input);
}

/** Saved by `prepare` and journaled: the resolved model, frame size and base seed. */
interface VideoPlan {
  model: string;
  width: number;
  height: number;
  /** The request's seed, or the one chosen for it; absent in plans journaled before seeds were kept. */
  seed?: number;
}

/**
 * video.generate: one item per video, on the model's providers in turn (failover), priced per second of footage from
 * config.
 */
export function createVideoType(deps: ImageTaskDeps): TaskTypeDefinition<VideoBody> {
  const resolveVideoModel = (request: VideoBody) => resolveModel(deps.config.current(), 'videoModels', request.model);

  /** (perSecond + the parameters' price) × duration_s + perInput × inputs. */
  const videoCost = (request: VideoBody): Micros => {
    const { model } = resolveVideoModel(request);
    if (!model) return 0;
    return (
      (parseUsd(model.price.perSecond)! + parameterPrice(model, request.parameters)) * request.duration_s +
      parseUsd(model.price.perInput)! * request.inputs.length
    );
  };

  return {
    type: 'video.generate',
    scope: 'video:generate',
    body: bodyPerConfig(deps, (config) => videoBody(Object.keys(config.videoModels))),
    toRequest: (body) => body,
    async validate(request, credential) {
      const { id, model } = await checkGenerationRequest(deps, 'videoModels', request, credential);
      const { capabilities } = model;
      if (request.duration_s > capabilities.maxDurationS)
        throw new AppError(
          'VALIDATION_ERROR',
          `model ${id} makes at most ${capabilities.maxDurationS} s of video; duration_s is ${request.duration_s}`,
        );
      if (request.fps > capabilities.maxFps)
        throw new AppError(
          'VALIDATION_ERROR',
          `model ${id} makes at most ${capabilities.maxFps} frames per second; fps is ${request.fps}`,
        );
      if (request.inputs.length > capabilities.maxInputs) {
        throw new AppError(
          'VALIDATION_ERROR',
          `model ${id} takes ${capabilities.maxInputs === 0 ? 'no input image' : 'one input image (the first frame)'}; ${request.inputs.length} were sent`,
        );
      }
      checkNegativePrompt(id, model, request);
      checkRunSeeds(deps.config.current(), id, request.count, 'videoModels');
    },
    itemCount: (request) => request.count,
    itemCost: (request) => videoCost(request),

    // Video work has its own lanes (video:<provider>), so a clip being encoded never holds up images.
    lane: (request) => `video:${modelLane(resolveVideoModel(request).model, 'generate')}`,
    maxAttempts: MAX_ATTEMPTS.video,
    // A server that last ran this model has it loaded: the lane sends the item there first.
    affinity: plannedModel,

    async prepare(task, request, signal) {
      const { id, model } = resolveVideoModel(request);
      if (!model) throw new ProviderError('CAPABILITY_NOT_SUPPORTED', `video model ${id} is no longer configured`);
      const saved: VideoPlan = (task.prepared as VideoPlan | undefined) ?? {
        model: id,
        ...videoDimensions(request.size, model.capabilities),
        seed: baseSeed(request.seed),
      };
      return { saved, runtime: await loadInputs(deps, request.inputs, signal) };
    },

    async runItem({
      task,
      request,
      index,
      attempt,
      prepared,
      signal,
      reportProgress,
      reportPreview,
      preferredProvider,
      engineDone,
      storedFiles,
    }) {
      const planned = (task.prepared ?? prepared.saved) as VideoPlan;
      const { model, generator, providerName } = modelProvider(
        deps,
        'videoModels',
        planned.model,
        (name) => deps.providers().videoGenerator(name),
        attempt,
        preferredProvider,
      );
      const [input] = prepared.runtime as SourceImage[];
      const seed = planned.seed === undefined ? undefined : itemSeed(planned.seed, index);
      const made = await generator.generate({
        model: planned.model,
        prompt: request.prompt,
        negativePrompt: request.negative_prompt,
        width: planned.width,
        height: planned.height,
        durationS: request.duration_s,
        fps: request.fps,
        format: request.format,
        input,
        index,
        seed,
        parameters: providerParameters(model, request.parameters),
        workflow: request.workflow as VideoParams['workflow'],
        options: model.options,
        signal,
        onProgress: reportProgress,
        onPreview: reportPreview,
      });
      // The engine has answered: its slot goes to the next item while this one is stored.
      engineDone?.();
      // A posted graph takes the frames binding only where it has that node input (else its clip keeps its own frame
      // count).
      const boundFrames = framesBound(model.bindings?.frames, request.workflow)
        ? Math.max(1, Math.round(request.duration_s * request.fps))
        : undefined;
      const { data, info } = await videoOutput(made, {
        format: request.format,
        fps: request.fps,
        boundFrames,
        ffmpegPath: deps.ffmpegPath(),
        signal,
      });
      const origin = generationOrigin(deps.config.current(), {
        taskId: task.id,
        taskType: 'video.generate',
        section: 'videoModels',
        model: planned.model,
        provider: providerName(),
        seed,
        prompt: request.prompt,
        postedWorkflow: request.workflow,
        parameters: {
          size: `${planned.width}x${planned.height}`,
          durationS: request.duration_s,
          fps: request.fps,
          seed,
          negativePrompt: request.negative_prompt,
          parameters: providerParameters(model, request.parameters),
        },
        input,
        inputTitle: 'first-frame',
      });
      const stored = await deps.videos.save(data, request.format, origin);
      storedFiles?.(stored.files);
      const fields = {
        size: sizeText(info.width, info.height),
        duration_s: Math.round(info.durationS * 100) / 100,
        fps: Math.round(info.fps * 100) / 100,
        format: request.format,
        cost: formatUsd(videoCost(request)),
      };
      return storedItem(deps, stored, fields, seed, { task, destination: request.destination, index, signal });
    },

    settle(task, request) {
      const planned = task.prepared as VideoPlan | undefined;
      // Failed videos are item failures; the task completes (docs/api/videos.md#generate-post-videogenerate).
      return {
        status: 'completed',
        result: { model: planned?.model ?? resolveVideoModel(request).id, videos: itemResults(task) },
      };
    },
  };
}

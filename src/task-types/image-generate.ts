import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { formatUsd, parseUsd } from '../domain/money.js';
import { dimensionsFor, normalizeSize, parseSizeText, sizeText } from '../domain/sizes.js';
import { MAX_ATTEMPTS, ProviderError } from '../domain/task-status.js';
import type { TaskTypeDefinition } from '../engine/task-registry.js';
import { probeImage, sniffImage } from '../media/images.js';
import type { GenerateParams, SourceImage } from '../providers/provider-types.js';
import { requireProvider, requireVision } from './checks.js';
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
import { type GenerateBody, generateBody } from './image-generate-body.js';
import { rateGeneratedImage, ratingRequestOf } from './image-generate-rating.js';
import { checkRunSeeds, outputsPerRun, runOf, taskOutputsPerRun } from './image-runs.js';
import { generationOrigin } from './output-origin.js';
import { parameterPrice, providerParameters } from './parameter-fields.js';
import { DestinationOutcome, ItemError, Provenance, UsdText } from './result-parts.js';
import { baseSeed, ItemSeed, itemSeed } from './seeds.js';
import type { ImageTaskDeps } from './task-type-deps.js';

/**
 * One image item: made (and charged), or failed on its own while the task completes
 * (docs/api/images.md#generate-post-imagegenerate).
 */
const GeneratedImage = z.discriminatedUnion('status', [
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
    cost: UsdText,
    seed: ItemSeed,
    destination: DestinationOutcome.optional(),
    rating: z
      .discriminatedUnion('status', [
        z.object({ status: z.literal('success'), level: z.string() }),
        z.object({ status: z.literal('failed'), error: z.object({ code: z.literal('RATING_FAILED') }) }),
      ])
      .optional(),
    provenance: Provenance,
  }),
  z.object({ status: z.literal('failed'), error: ItemError }),
]);

/** The task's result: the resolved model, one item per image, and the magic prompt when one was applied. */
export const GenerateResult = z.object({
  model: z.string(),
  images: z.array(GeneratedImage),
  magic_prompt: z.object({ positive: z.string(), negative: z.string().optional() }).optional(),
});

/** Saved by `prepare` and journaled: the resolved model and size, the magic prompt, and the base seed. */
interface GenerationPlan {
  model: string;
  width: number;
  height: number;
  magicPrompt?: { positive: string; negative?: string };
  /** The request's seed, or the one chosen for it; absent in plans journaled before seeds were kept. */
  seed?: number;
}

/** image.generate: one item per image, on the model's providers in turn (failover), priced per image from config. */
export function createGenerateType(deps: ImageTaskDeps): TaskTypeDefinition<GenerateBody> {
  const resolveImageModel = (request: GenerateBody) => resolveModel(deps.config.current(), 'models', request.model);

  /** perImage (or the 4K price at 4K scale, when the model has one) + perInput × inputs. */
  const imageCost = (request: GenerateBody): number => {
    const { model } = resolveImageModel(request);
    if (!model) return 0;
    const size = normalizeSize(request.size);
    const fourK =
      size.kind === 'ratio' && size.scale === '4k' && model.capabilities.supports4k && model.price.perImage4k;
    return (
      parseUsd(fourK ? model.price.perImage4k! : model.price.perImage)! +
      parseUsd(model.price.perInput)! * request.inputs.length +
      parameterPrice(model, request.parameters)
    );
  };

  /** Resolves model, size, the seed and (once) the magic prompt; a plan saved before a restart is reused. */
  async function plan(
    task: { prepared?: unknown },
    request: GenerateBody,
    signal: AbortSignal,
  ): Promise<GenerationPlan> {
    const { id, model } = resolveImageModel(request);
    if (!model) throw new ProviderError('CAPABILITY_NOT_SUPPORTED', `model ${id} is no longer configured`);
    if (task.prepared) return task.prepared as GenerationPlan;
    const size = normalizeSize(request.size);
    if (size.kind === 'ratio' && size.scale === '4k' && !model.capabilities.supports4k) {
      throw new ProviderError('CAPABILITY_NOT_SUPPORTED', `model ${id} has no 4K output`);
    }
    const native = parseSizeText(model.capabilities.nativeSize ?? '') ?? dimensionsFor('1:1', 'base');
    const { width, height } = size.kind === 'auto' ? native : dimensionsFor(size.ratio, size.scale);
    const planned: GenerationPlan = { model: id, width, height, seed: baseSeed(request.seed) };
    if (request.magic_prompt) {
      const enhancer = deps.providers().promptEnhancer;
      if (!enhancer) throw new ProviderError('CAPABILITY_NOT_SUPPORTED', 'no prompt enhancer is configured');
      planned.magicPrompt = await enhancer.enhance(request.prompt, request.negative_prompt, signal);
    }
    return planned;
  }

  /** A generated image as a rater takes it; the planned size when its header cannot be read (storing it then fails). */
  const sourceOf = async (data: Buffer, planned: GenerationPlan): Promise<SourceImage> =>
    probeImage(data, deps.config.current().fetch.maxPixels)
      .then(({ format, width, height }) => ({ data, format, width, height }))
      .catch(() => ({ data, format: sniffImage(data) ?? 'png', width: planned.width, height: planned.height }));

  return {
    type: 'image.generate',
    scope: 'image:generate',
    body: bodyPerConfig(deps, (config) => generateBody(Object.keys(config.models))),
    toRequest: (body) => body,
    async validate(request, credential) {
      const { id, model } = await checkGenerationRequest(deps, 'models', request, credential);
      const { capabilities } = model;
      if (request.inputs.length > capabilities.maxInputs) {
        throw new AppError(
          'VALIDATION_ERROR',
          `model ${id} takes at most ${capabilities.maxInputs} input image(s); ${request.inputs.length} were sent`,
        );
      }
      checkNegativePrompt(id, model, request);
      checkRunSeeds(deps.config.current(), id, request.count);
      const rating = ratingRequestOf(request.rating);
      if (rating?.mode === 'custom') requireVision(deps.providers().visionRater, 'custom rating');
      if (rating?.mode === 'nsfw_sfw') requireProvider(deps.providers().nsfwRater, 'nsfw_sfw rating');
    },
    // `count` runs, each making one item per output of the model's workflow.
    itemCount: (request) =>
      request.count * outputsPerRun(deps.config.current(), resolveImageModel(request).id, request.workflow),
    itemCost: (request) => imageCost(request),

    lane: (request) => modelLane(resolveImageModel(request).model, 'image.generate'),
    maxAttempts: MAX_ATTEMPTS.image,
    // A server that last ran this model has it loaded: the lane sends the item there first.
    affinity: plannedModel,

    async prepare(task, request, signal) {
      const saved = await plan(task, request, signal);
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
      const planned = (task.prepared ?? prepared.saved) as GenerationPlan;
      const { model, generator, providerName } = modelProvider(
        deps,
        'models',
        planned.model,
        (name) => deps.providers().generator(name),
        attempt,
        preferredProvider,
      );
      // The items of one run share its job and its seed (docs/comfyui.md#every-output).
      const outputs = taskOutputsPerRun(task.items.length, request.count);
      const { run, output } = runOf(index, outputs);
      const seed = planned.seed === undefined ? undefined : itemSeed(planned.seed, run);
      const inputs = prepared.runtime as SourceImage[];
      const prompt = planned.magicPrompt?.positive ?? request.prompt;
      const negativePrompt = planned.magicPrompt?.negative ?? request.negative_prompt;
      const parameters = providerParameters(model, request.parameters);
      const generated = await generator.generate({
        model: planned.model,
        prompt,
        negativePrompt,
        width: planned.width,
        height: planned.height,
        inputs,
        index,
        seed,
        // Not keyed by attempt: an item that comes to its run late (its attempt 1 after a sibling's retry) takes that
        // run's outcome.
        ...(outputs > 1 && { run: { key: `${task.id}:${run}`, output, outputs } }),
        parameters,
        workflow: request.workflow as GenerateParams['workflow'],
        options: model.options,
        signal,
        onProgress: reportProgress,
        onPreview: reportPreview,
      });
      // The engine has answered: its slot goes to the next item while this one is stored.
      engineDone?.();
      // Rated before it is stored, so its level goes into its credentials (the generated bytes are rated either way).
      const rating = ratingRequestOf(request.rating);
      const rated = rating
        ? await rateGeneratedImage(deps, rating, await sourceOf(generated.data, planned), signal)
        : undefined;
      const origin = generationOrigin(deps.config.current(), {
        taskId: task.id,
        taskType: 'image.generate',
        section: 'models',
        model: planned.model,
        provider: providerName(),
        seed,
        prompt,
        postedWorkflow: request.workflow,
        parameters: { size: `${planned.width}x${planned.height}`, seed, negativePrompt, parameters },
        input: inputs[0],
        rating: rated?.status === 'success' ? rated.level : undefined,
      });
      const stored = await deps.images.saveEncoded(
        generated.data,
        request.output.format,
        request.output.quality,
        origin,
      );
      storedFiles?.(stored.files);
      const item = await storedItem(
        deps,
        stored,
        { size: sizeText(stored.width, stored.height), cost: formatUsd(imageCost(request)) },
        seed,
        { task, destination: request.destination, index, signal },
      );
      if (rated) item.rating = rated;
      return item;
    },

    settle(task, request) {
      const planned = task.prepared as GenerationPlan | undefined;
      const result: Record<string, unknown> = {
        model: planned?.model ?? resolveImageModel(request).id,
        images: itemResults(task),
      };
      if (planned?.magicPrompt) result.magic_prompt = planned.magicPrompt;
      // Failed images are item failures; the task completes (docs/api/images.md#generate-post-imagegenerate).
      return { status: 'completed', result };
    },
  };
}

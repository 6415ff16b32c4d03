import { AppError } from '../../domain/errors.js';
import { formatUsd, parseUsd } from '../../domain/money.js';
import { dimensionsFor, normalizeSize, parseSizeText, sizeText } from '../../domain/sizes.js';
import { NSFW_LEVELS } from '../../domain/rating.js';
import { MAX_ATTEMPTS, ProviderError } from '../../domain/tasks.js';
import type { ModelConfig } from '../../config/schema.js';
import { sniffImage } from '../../media/images.js';
import type { RatingRequest, SourceImage } from '../../providers/types.js';
import { checkDestination, checkMetadata, requireProvider } from '../../services/image/checks.js';
import { generateBody, inputUrl, type GenerateRequest } from '../../services/image/requests.js';
import type { TaskTypeDefinition } from '../../services/task-types.js';
import { deliverToDestination, type ImageTypeDeps } from './deps.js';

/** Saved by `prepare` and journaled: the resolved model and size, and the magic prompt. */
interface GenerationPlan {
  model: string;
  width: number;
  height: number;
  magicPrompt?: { positive: string; negative?: string };
}

export const ratingRequestOf = (rating: GenerateRequest['rating']): RatingRequest | null => {
  if (rating === undefined) return null;
  if (rating === true || rating.mode === 'nsfw_sfw') return { mode: 'nsfw_sfw', levels: [...NSFW_LEVELS] };
  return { mode: 'custom', levels: rating.levels };
};

export function createGenerateType(deps: ImageTypeDeps): TaskTypeDefinition<GenerateRequest> {
  const resolveModel = (request: GenerateRequest): { id: string; model: ModelConfig | undefined } => {
    const id = request.model === 'auto' ? deps.config().defaultModel : request.model;
    return { id, model: deps.config().models[id] };
  };
  const providersOf = (model: ModelConfig) => model.providers ?? (model.provider ? [model.provider] : []);

  /** perImage (or the 4K price at 4K scale, when the model has one) + perInput × inputs. */
  const imageCost = (request: GenerateRequest): number => {
    const { model } = resolveModel(request);
    if (!model) return 0;
    const size = normalizeSize(request.size);
    const fourK = size.kind === 'ratio' && size.scale === '4k' && model.capabilities.supports4k && model.price.perImage4k;
    return parseUsd(fourK ? model.price.perImage4k! : model.price.perImage)! + parseUsd(model.price.perInput)! * request.inputs.length;
  };

  return {
    type: 'image.generate',
    schema: () => generateBody(Object.keys(deps.config().models)),
    scope: 'image:generate',
    maxAttempts: MAX_ATTEMPTS.image,
    itemCount: (request) => request.count,
    itemCost: (request) => imageCost(request),
    lane: (request) => {
      const { model } = resolveModel(request);
      return (model && providersOf(model)[0]) || 'image.generate';
    },

    async validate(request, { accountId }) {
      checkMetadata(request.metadata);
      await checkDestination(deps.destinations, accountId, request.destination);
      const { id, model } = resolveModel(request);
      if (!model) throw new AppError('VALIDATION_ERROR', `the default model "${id}" is not configured`);
      const { capabilities } = model;
      if (request.inputs.length > capabilities.maxInputs) {
        throw new AppError('VALIDATION_ERROR', `model ${id} takes at most ${capabilities.maxInputs} input image(s); ${request.inputs.length} were sent`);
      }
      if (request.negative_prompt !== undefined && !capabilities.negativePrompt) throw new AppError('VALIDATION_ERROR', `model ${id} does not take a negative_prompt`);
      const rating = ratingRequestOf(request.rating);
      if (rating?.mode === 'custom') requireProvider(deps.providers().visionRater, 'custom rating (a vision model)');
      if (rating?.mode === 'nsfw_sfw') requireProvider(deps.providers().nsfwRater, 'nsfw_sfw rating');
    },

    async prepare(task, request) {
      const { id, model } = resolveModel(request);
      if (!model) throw new ProviderError('CAPABILITY_NOT_SUPPORTED', `model ${id} is no longer configured`);
      const previous = task.prepared as GenerationPlan | undefined;
      let plan: GenerationPlan;
      if (previous) plan = previous;
      else {
        const size = normalizeSize(request.size);
        if (size.kind === 'ratio' && size.scale === '4k' && !model.capabilities.supports4k) {
          throw new ProviderError('CAPABILITY_NOT_SUPPORTED', `model ${id} has no 4K output`);
        }
        const native = parseSizeText(model.capabilities.nativeSize ?? '') ?? dimensionsFor('1:1', 'base');
        const { width, height } = size.kind === 'auto' ? native : dimensionsFor(size.ratio, size.scale);
        plan = { model: id, width, height };
        if (request.magic_prompt) {
          const enhancer = deps.providers().promptEnhancer;
          if (!enhancer) throw new ProviderError('CAPABILITY_NOT_SUPPORTED', 'no prompt enhancer is configured');
          plan.magicPrompt = await enhancer.enhance(request.prompt, request.negative_prompt, new AbortController().signal);
        }
      }
      const inputs: SourceImage[] = await Promise.all(request.inputs.map((entry) => deps.images.load(inputUrl(entry), 'INVALID_INPUT')));
      return { saved: plan, runtime: inputs };
    },

    async runItem({ task, request, index, attempt, prepared, signal }) {
      const plan = (task.prepared ?? prepared.saved) as GenerationPlan;
      const model = deps.config().models[plan.model];
      if (!model) throw new ProviderError('CAPABILITY_NOT_SUPPORTED', `model ${plan.model} is no longer configured`);
      // Attempt n starts at the model's n-th provider (failover across them) and takes the
      // first one with capacity; when every one is busy the attempt fails PROVIDERS_BUSY.
      const names = providersOf(model);
      const turn = names.map((_, i) => names[(attempt - 1 + i) % names.length]);
      const name = turn.find((candidate) => !deps.providers().generator(candidate)?.busy?.());
      if (!name) throw new ProviderError('PROVIDERS_BUSY', `every provider of model ${plan.model} is at capacity`);
      const generator = deps.providers().generator(name);
      if (!generator) throw new ProviderError('PROVIDER_ERROR', `provider ${name} is not available`, { retryable: names.length > 1 });
      const generated = await generator.generate({
        model: plan.model,
        prompt: plan.magicPrompt?.positive ?? request.prompt,
        negativePrompt: plan.magicPrompt?.negative ?? request.negative_prompt,
        width: plan.width,
        height: plan.height,
        inputs: prepared.runtime as SourceImage[],
        index,
        options: model.options,
        signal,
      });
      const stored = await deps.images.saveEncoded(generated.data, request.output.format, request.output.quality);
      const item: Record<string, unknown> = {
        status: 'success',
        id: stored.id,
        url: stored.serviceUrl,
        service_url: stored.serviceUrl,
        size: sizeText(stored.width, stored.height),
        cost: formatUsd(imageCost(request)),
      };
      await deliverToDestination(deps, item, { accountId: task.accountId, destination: request.destination, taskId: task.id, index, image: stored });
      const rating = ratingRequestOf(request.rating);
      if (rating) item.rating = await rateImage(deps, rating, { data: generated.data, format: sniffImage(generated.data) ?? 'png', width: stored.width, height: stored.height }, signal);
      return item;
    },

    settle(task, request) {
      const plan = task.prepared as GenerationPlan | undefined;
      const images = task.items.map((item) => (item.status === 'success' ? item.result : { status: 'failed', error: item.error }));
      const result: Record<string, unknown> = { model: plan?.model ?? resolveModel(request).id, images };
      if (plan?.magicPrompt) result.magic_prompt = plan.magicPrompt;
      // SPEC part 3, rule 1: failed images are item failures; the task completes.
      return { status: 'completed', result };
    },
  };
}

/** An image's rating: success with the level, or failed RATING_FAILED (the image itself still succeeds). */
async function rateImage(deps: ImageTypeDeps, request: RatingRequest, image: SourceImage, signal: AbortSignal) {
  const rater = request.mode === 'custom' ? deps.providers().visionRater : deps.providers().nsfwRater;
  try {
    if (!rater) throw new Error('no rater');
    const level = await rater.rate(image, request, signal);
    if (!request.levels.some((l) => l.value === level)) throw new Error('not a level');
    return { status: 'success', level };
  } catch {
    return { status: 'failed', error: { code: 'RATING_FAILED' } };
  }
}

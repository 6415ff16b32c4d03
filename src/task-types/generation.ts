import type { z } from 'zod';
import type { Config, ModelConfig, VideoModelConfig } from '../config/schema.js';
import { AppError } from '../domain/errors.js';
import { modelProviders, providersLane } from '../domain/provider-lanes.js';
import { ProviderError } from '../domain/task-status.js';
import type { TaskRecord } from '../engine/task-registry.js';
import type { SourceImage } from '../providers/provider-types.js';
import { checkDestination, checkMetadata } from './checks.js';
import { providerForAttempt } from './failover.js';
import { providerNameOf } from './output-origin.js';
import { checkParameters, checkRawWorkflow } from './parameter-fields.js';
import { type InputEntry, inputUrl } from './request-parts.js';
import { deliverToDestination, type ImageTaskDeps } from './task-type-deps.js';

// The steps image.generate and video.generate take alike: each reads its own section of the config
// (`models` or `videoModels`) and names its models in messages as "model x" or "video model x".

type ModelSection = 'models' | 'videoModels';
type ModelOf<S extends ModelSection> = S extends 'models' ? ModelConfig : VideoModelConfig;
const DEFAULT_OF = { models: 'defaultModel', videoModels: 'defaultVideoModel' } as const;
const WHAT = { models: 'model', videoModels: 'video model' } as const;

/** The body schema, built once per config (it names the model ids; a reload builds it anew). */
export function bodyPerConfig<S>(deps: ImageTaskDeps, build: (config: Config) => S): () => S {
  let built: { config: object; schema: S } | null = null;
  return () => {
    const config = deps.config.current();
    if (built?.config !== config) built = { config, schema: build(config) };
    return built.schema;
  };
}

/** The model a request names, `auto` standing for the section's default; undefined when it is not configured. */
export function resolveModel<S extends ModelSection>(
  config: Config,
  section: S,
  requested: string,
): { id: string; model: ModelOf<S> | undefined } {
  const id = requested === 'auto' ? config[DEFAULT_OF[section]] : requested;
  return { id, model: config[section][id] as ModelOf<S> | undefined };
}

/** What every generation request carries that the shared checks read. */
interface GenerationRequest {
  metadata?: Record<string, unknown>;
  destination?: string;
  workflow?: Record<string, unknown>;
  parameters?: Record<string, unknown>;
  negative_prompt?: string;
}

/**
 * The checks every generation request passes first: metadata, destination, a configured model, a posted graph,
 * parameters.
 */
export async function checkGenerationRequest<S extends ModelSection>(
  deps: ImageTaskDeps,
  section: S,
  request: GenerationRequest & { model: string },
  { accountId, scopes }: { accountId: string; scopes?: readonly string[] },
): Promise<{ id: string; model: ModelOf<S> }> {
  checkMetadata(request.metadata);
  await checkDestination(deps.destinations, accountId, request.destination);
  const { id, model } = resolveModel(deps.config.current(), section, request.model);
  if (!model) throw new AppError('VALIDATION_ERROR', `the default ${WHAT[section]} "${id}" is not configured`);
  checkRawWorkflow(id, model, request.workflow, scopes);
  checkParameters(id, model, request.parameters);
  return { id, model };
}

/** Refuses a negative_prompt the model does not take. */
export function checkNegativePrompt(id: string, model: ModelOf<ModelSection>, request: GenerationRequest): void {
  if (request.negative_prompt !== undefined && !model.capabilities.negativePrompt)
    throw new AppError('VALIDATION_ERROR', `model ${id} does not take a negative_prompt`);
}

/** The lane of a model's items: its providers, or `fallback` when it has none (or is not configured). */
export function modelLane(model: ModelOf<ModelSection> | undefined, fallback: string): string {
  return model && modelProviders(model).length > 0 ? providersLane(modelProviders(model)) : fallback;
}

/** The model a prepared task runs (journaled plan, else what `prepare` just saved). */
export const plannedModel = (task: TaskRecord, prepared: { saved?: unknown }): string | undefined =>
  ((task.prepared ?? prepared.saved) as { model?: string } | undefined)?.model;

/** The request's input images, fetched (a failed fetch fails the task INVALID_INPUT). */
export const loadInputs = (
  deps: ImageTaskDeps,
  inputs: readonly z.infer<typeof InputEntry>[],
  signal: AbortSignal,
): Promise<SourceImage[]> =>
  Promise.all(inputs.map((entry) => deps.images.load(inputUrl(entry), 'INVALID_INPUT', signal)));

/**
 * The planned model, still configured, and the provider this attempt runs it on (failover across
 * the model's providers); `providerName` names that provider for the output's credentials.
 */
export function modelProvider<S extends ModelSection, P extends { busy?(): boolean; down?(): boolean }>(
  deps: ImageTaskDeps,
  section: S,
  id: string,
  lookup: (name: string) => P | undefined,
  attempt: number,
  preferred: string | undefined,
): { model: ModelOf<S>; generator: P; providerName: () => string | undefined } {
  const model = deps.config.current()[section][id] as ModelOf<S> | undefined;
  if (!model) throw new ProviderError('CAPABILITY_NOT_SUPPORTED', `${WHAT[section]} ${id} is no longer configured`);
  const providers = modelProviders(model);
  const generator = providerForAttempt(providers, attempt, lookup, `${WHAT[section]} ${id}`, preferred);
  return { model, generator, providerName: () => providerNameOf(providers, lookup, generator) };
}

/**
 * A stored output as the task's item: its ids and URLs, then `fields`, its seed and credentials; delivered to the
 * request's destination.
 */
export async function storedItem(
  deps: ImageTaskDeps,
  stored: { id: string; serviceUrl: string; provenance?: unknown; format: string; data: Buffer },
  fields: Record<string, unknown>,
  seed: number | undefined,
  delivery: { task: TaskRecord; destination?: string; index: number; signal: AbortSignal },
): Promise<Record<string, unknown>> {
  const item: Record<string, unknown> = {
    status: 'success',
    id: stored.id,
    url: stored.serviceUrl,
    service_url: stored.serviceUrl,
    ...fields,
  };
  if (seed !== undefined) item.seed = seed;
  if (stored.provenance) item.provenance = stored.provenance;
  await deliverToDestination(deps, item, {
    accountId: delivery.task.accountId,
    destination: delivery.destination,
    taskId: delivery.task.id,
    index: delivery.index,
    image: stored,
    signal: delivery.signal,
  });
  return item;
}

/** The task's items as its result lists them: each success's item, or the failure's error. */
export const itemResults = (task: TaskRecord): unknown[] =>
  task.items.map((item) => (item.status === 'success' ? item.result : { status: 'failed', error: item.error }));

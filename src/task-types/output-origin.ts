import { createHash } from 'node:crypto';
import type { Config } from '../config/schema.js';
import { IMAGE_MIME } from '../domain/media-types.js';
import type { OutputOrigin } from '../domain/provenance.js';
import type { SourceImage } from '../providers/provider-types.js';

/** JSON with every object's keys sorted: the same graph or parameters hash the same however they were written. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const sha256 = (value: unknown) => createHash('sha256').update(canonicalJson(value)).digest('hex');

/** The name of the provider an attempt picked (the one `lookup` answers it for); undefined when none does. */
export const providerNameOf = <P>(
  names: readonly string[],
  lookup: (name: string) => P | undefined,
  chosen: P,
): string | undefined => names.find((name) => lookup(name) === chosen);

/** An input image as a manifest's ingredient. */
export const ingredientOf = (image: SourceImage, title: string): NonNullable<OutputOrigin['ingredient']> => ({
  data: image.data,
  mimeType: IMAGE_MIME[image.format] ?? 'application/octet-stream',
  title: `${title}.${image.format === 'jpeg' ? 'jpg' : image.format}`,
});

/** What a generate item (image or video) made, as its credentials state it (docs/provenance.md). */
export interface GenerationRun {
  taskId: string;
  taskType: string;
  section: 'models' | 'videoModels';
  model: string;
  provider?: string;
  seed?: number;
  prompt: string;
  /** The graph the request posted (`workflow`), run instead of the model's own. */
  postedWorkflow?: unknown;
  /**
   * The generation parameters (size, seed, negative prompt, the model's parameters…), hashed when no ComfyUI workflow
   * ran.
   */
  parameters: Record<string, unknown>;
  /** The first input image: the output is an edit of it. */
  input?: SourceImage;
  inputTitle?: string;
  rating?: string;
}

/**
 * The origin of a generated output: `created`, or `edited` from its first input; the SHA-256 of
 * the ComfyUI workflow that ran (the posted graph, else the model's own), or, for any other model,
 * of the generation parameters.
 */
export function generationOrigin(config: Config, run: GenerationRun): OutputOrigin {
  const workflow = run.postedWorkflow ?? config.workflows[`${run.section}.${run.model}`]?.graph;
  const origin: OutputOrigin = {
    action: run.input ? 'edited' : 'created',
    taskId: run.taskId,
    taskType: run.taskType,
    model: run.model,
    prompt: run.prompt,
  };
  if (run.provider !== undefined) origin.provider = run.provider;
  if (run.seed !== undefined) origin.seed = run.seed;
  if (workflow) origin.workflowSha256 = sha256(workflow);
  else origin.parametersSha256 = sha256({ model: run.model, ...run.parameters });
  if (run.rating !== undefined) origin.rating = run.rating;
  if (run.input) origin.ingredient = ingredientOf(run.input, run.inputTitle ?? 'input');
  return origin;
}

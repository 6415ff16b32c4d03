import { z } from 'zod';
import { parseWorkflow, type WorkflowGraph } from '../domain/comfy-workflows.js';
import { AppError } from '../domain/errors.js';
import {
  type ModelParameter,
  type ParameterValue,
  parameterValueProblem,
  parameterValues,
} from '../domain/model-parameters.js';
import { type Micros, parseUsd } from '../domain/money.js';

/**
 * The request side of a ComfyUI model's declared `parameters` and of a posted raw graph
 * (`workflow`), shared by /image/generate and /video/generate (docs/comfyui.md#parameters-per-request,
 * docs/comfyui.md#raw-graphs-trusted-keys).
 */

/** The scope a credential needs to post a whole graph. */
export const RAW_WORKFLOW_SCOPE = 'workflow:raw';
/** The largest graph a request may post: its JSON, and its nodes. */
export const RAW_WORKFLOW_LIMITS = { bytes: 256 * 1024, nodes: 500 } as const;

export const ParametersField = z
  .record(z.string().max(64), z.union([z.string(), z.number(), z.boolean()]))
  .optional()
  .describe(
    "Values of the model's declared parameters by name (GET /models lists them); a parameter left out takes its default. Only for models that declare parameters.",
  );

export const WorkflowField = z
  .record(z.string(), z.unknown())
  .optional()
  .describe(
    `A whole ComfyUI graph in API format, run instead of the model's workflow: only with the scope ${RAW_WORKFLOW_SCOPE} (403 INSUFFICIENT_SCOPE without it), on a model with allowRawWorkflows, at most ${RAW_WORKFLOW_LIMITS.nodes} nodes and ${RAW_WORKFLOW_LIMITS.bytes / 1024} KB. The model's bindings are set where the graph has their node input.`,
  );

interface ModelWithParameters {
  parameters?: Readonly<Record<string, ModelParameter>>;
  allowRawWorkflows?: boolean;
}

/**
 * Refuses a request's `parameters` unless each names a declared parameter with a value it takes (VALIDATION_ERROR
 * naming it).
 */
export function checkParameters(
  modelId: string,
  model: ModelWithParameters,
  given: Readonly<Record<string, unknown>> | undefined,
): void {
  if (given === undefined) return;
  const declared = model.parameters ?? {};
  const names = Object.keys(declared);
  if (names.length === 0) throw new AppError('VALIDATION_ERROR', `parameters: model ${modelId} takes no parameters`);
  for (const [name, value] of Object.entries(given)) {
    const parameter = Object.hasOwn(declared, name) ? declared[name] : undefined;
    if (!parameter)
      throw new AppError(
        'VALIDATION_ERROR',
        `parameters.${name}: model ${modelId} has no parameter "${name}" (it has: ${names.join(', ')})`,
      );
    const problem = parameterValueProblem(parameter, value);
    if (problem) throw new AppError('VALIDATION_ERROR', `parameters.${name} ${problem}`);
  }
}

/**
 * What the provider gets: every declared parameter's value, defaults filled in; undefined for a model that declares
 * none.
 */
export function providerParameters(
  model: ModelWithParameters,
  given: Readonly<Record<string, ParameterValue>> | undefined,
): Record<string, ParameterValue> | undefined {
  return model.parameters && Object.keys(model.parameters).length > 0
    ? parameterValues(model.parameters, given)
    : undefined;
}

/**
 * Σ value × price.perUnit over the priced parameters (the request's value, else the default), rounded to the
 * micro-dollar: added per image, or per second of video.
 */
export function parameterPrice(
  model: ModelWithParameters,
  given: Readonly<Record<string, ParameterValue>> | undefined,
): Micros {
  let total = 0;
  for (const [name, parameter] of Object.entries(model.parameters ?? {})) {
    if (!parameter.price) continue;
    const value = Object.hasOwn(given ?? {}, name) ? given?.[name] : parameter.default;
    if (typeof value === 'number') total += Math.round(value * parseUsd(parameter.price.perUnit)!);
  }
  return Math.max(0, total);
}

/**
 * Refuses a posted graph unless the credential holds workflow:raw (403 INSUFFICIENT_SCOPE), the
 * model allows raw graphs, and the graph is API format within RAW_WORKFLOW_LIMITS (VALIDATION_ERROR).
 */
export function checkRawWorkflow(
  modelId: string,
  model: ModelWithParameters,
  workflow: Record<string, unknown> | undefined,
  scopes: readonly string[] | undefined,
): void {
  if (workflow === undefined) return;
  if (!scopes?.includes(RAW_WORKFLOW_SCOPE)) {
    throw new AppError('INSUFFICIENT_SCOPE', `posting a workflow needs the scope ${RAW_WORKFLOW_SCOPE}`, {
      scopes: { required: [RAW_WORKFLOW_SCOPE], current: [...(scopes ?? [])] },
    });
  }
  if (!model.allowRawWorkflows)
    throw new AppError(
      'VALIDATION_ERROR',
      `workflow: model ${modelId} does not take a posted workflow (allowRawWorkflows is off)`,
    );
  const text = JSON.stringify(workflow);
  if (Buffer.byteLength(text) > RAW_WORKFLOW_LIMITS.bytes)
    throw new AppError('VALIDATION_ERROR', `workflow: larger than ${RAW_WORKFLOW_LIMITS.bytes / 1024} KB`);
  let graph: WorkflowGraph;
  try {
    graph = parseWorkflow(text);
  } catch (err) {
    throw new AppError('VALIDATION_ERROR', `workflow: ${(err as Error).message}`);
  }
  if (Object.keys(graph).length > RAW_WORKFLOW_LIMITS.nodes)
    throw new AppError('VALIDATION_ERROR', `workflow: more than ${RAW_WORKFLOW_LIMITS.nodes} nodes`);
}

import type { Config } from '../config/schema.js';
import { runOutputs } from '../domain/comfy-outputs.js';
import type { WorkflowGraph } from '../domain/comfy-workflows.js';
import { AppError } from '../domain/errors.js';

/**
 * Runs of a model's workflow and the items they make (docs/comfyui.md#every-output): a
 * ComfyUI workflow with several output nodes makes one item per node each run, so a request's
 * `count` is its number of runs; any other model makes one item per run.
 */

const workflowOf = (config: Config, modelId: string) => config.workflows[`models.${modelId}`];

/**
 * Items one run of the model makes: its workflow's counted output nodes (of a posted graph, its save nodes); 1 for any
 * other model.
 */
export function outputsPerRun(config: Config, modelId: string, posted?: Record<string, unknown>): number {
  const outputs = posted ? runOutputs(posted as WorkflowGraph, undefined) : workflowOf(config, modelId)?.outputs;
  return Math.max(1, outputs?.length ?? 1);
}

/**
 * A created task's outputs per run: its items over the request's runs, as fixed at create (a
 * reload that changed the model's outputs since does not move items between runs).
 */
export const taskOutputsPerRun = (items: number, count: number): number =>
  Math.max(1, Math.floor(items / Math.max(1, count)));

/** The run item `index` belongs to (its seed is the run's) and which output of it the item takes. */
export const runOf = (index: number, outputs: number) => ({
  run: Math.floor(index / outputs),
  output: index % outputs,
});

/**
 * Without a seed binding every run of a ComfyUI workflow is the same graph, which ComfyUI answers
 * from its cache: `count` > 1 would charge for copies of one image (or clip), so it is refused.
 */
export function checkRunSeeds(
  config: Config,
  modelId: string,
  count: number,
  section: 'models' | 'videoModels' = 'models',
): void {
  const workflow = config.workflows[`${section}.${modelId}`];
  if (count > 1 && workflow && !workflow.bindings.seed) {
    throw new AppError(
      'VALIDATION_ERROR',
      `model ${modelId} has no seed binding: its ComfyUI workflow would make the same ${section === 'models' ? 'image' : 'video'} for each of the ${count} asked for; send count 1 (or bind a seed input in the model's config)`,
    );
  }
}

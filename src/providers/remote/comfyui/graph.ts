import { parseBinding, type WorkflowBindings, type WorkflowGraph } from '../../../domain/comfy-workflows.js';

/** What one item puts into its workflow; absent values leave the workflow's own. */
export interface BoundValues {
  prompt: string;
  negativePrompt?: string;
  seed?: number;
  width?: number;
  height?: number;
  /** One image per item. */
  batchSize?: number;
  /** The names ComfyUI gave the uploaded input images, in request order. */
  images?: string[];
  fps?: number;
  frames?: number;
}

/** The model's declared parameters (config `parameters`): each name's binding, and every value (defaults filled in). */
export interface BoundParameters {
  bindings: Readonly<Record<string, string>>;
  values: Readonly<Record<string, string | number | boolean>>;
}

/**
 * A copy of `graph` with each bound input set (the loaded workflow itself is shared by every
 * item and never changed). Bindings were checked against the graph at config load; a graph a
 * request posted (`onlyExistingInputs`) was not, so a binding whose node input it lacks is skipped.
 */
export function bindWorkflow(
  graph: WorkflowGraph,
  bindings: WorkflowBindings & { fps?: string; frames?: string },
  values: BoundValues,
  options: { parameters?: BoundParameters; onlyExistingInputs?: boolean } = {},
): WorkflowGraph {
  const copy = structuredClone(graph);
  const set = (path: string | undefined, value: unknown) => {
    if (path === undefined || value === undefined) return;
    const target = parseBinding(path);
    const node = target && copy[target.node];
    if (!node || (options.onlyExistingInputs && !Object.hasOwn(node.inputs, target.input))) return;
    node.inputs[target.input] = value;
  };
  for (const [name, value] of Object.entries(options.parameters?.values ?? {}))
    set(options.parameters?.bindings[name], value);
  set(bindings.prompt, values.prompt);
  set(bindings.negativePrompt, values.negativePrompt);
  set(bindings.seed, values.seed);
  set(bindings.width, values.width);
  set(bindings.height, values.height);
  set(bindings.batchSize, values.batchSize);
  set(bindings.fps, values.fps);
  set(bindings.frames, values.frames);
  for (const [i, name] of (values.images ?? []).entries()) set(bindings.images?.[i], name);
  return copy;
}

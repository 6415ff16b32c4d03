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

/**
 * A copy of `graph` with each bound input set (the loaded workflow itself is shared by every
 * item and never changed). Bindings were checked against the graph at config load.
 */
export function bindWorkflow(graph: WorkflowGraph, bindings: WorkflowBindings & { fps?: string; frames?: string }, values: BoundValues): WorkflowGraph {
  const copy = structuredClone(graph);
  const set = (path: string | undefined, value: unknown) => {
    if (path === undefined || value === undefined) return;
    const target = parseBinding(path);
    if (target && copy[target.node]) copy[target.node].inputs[target.input] = value;
  };
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

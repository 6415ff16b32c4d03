/**
 * ComfyUI workflows in API format and the bindings that say which node input receives what:
 * the shapes and the pure checks, shared by config loading, the provider and doctor.
 */
import { BUILT_IN_BINDING_NAMES } from './model-parameters.js';
/** One node of a ComfyUI workflow in API format: `{ "3": { "class_type": "KSampler", "inputs": { … } } }`. */
export interface WorkflowNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string };
}
export type WorkflowGraph = Record<string, WorkflowNode>;

/** Which node input receives what, as `"<node id>.inputs.<name>"`. Only `prompt` is required. */
export interface WorkflowBindings {
  prompt: string;
  negativePrompt?: string;
  seed?: string;
  width?: string;
  height?: string;
  batchSize?: string;
  /** Input images, in request order: each receives the name ComfyUI gave its upload. */
  images?: string[];
  /** Video workflows: frames per second, and the number of frames (duration × fps). */
  fps?: string;
  frames?: string;
}

/** A model's workflow, read and checked at config load. */
export interface LoadedWorkflow {
  /** The file as resolved (absolute). */
  file: string;
  graph: WorkflowGraph;
  bindings: WorkflowBindings;
  /** The model's declared parameters (config `parameters`): each name's binding. */
  parameters?: Readonly<Record<string, string>>;
  /**
   * Image models: the output nodes whose files are the items of one run, in order (comfy-outputs.ts runOutputs);
   * absent: one item per run.
   */
  outputs?: readonly string[];
  /** Image models: the `outputs` the model names itself, as configured (doctor checks them again). */
  namedOutputs?: readonly string[];
}

/** A binding path split: the node id and the input name. */
export interface BindingTarget {
  node: string;
  input: string;
}

const BINDING = /^([^.\s]+)\.inputs\.([^.\s]+)$/;

export const parseBinding = (path: string): BindingTarget | undefined => {
  const match = BINDING.exec(path);
  return match ? { node: match[1], input: match[2] } : undefined;
};

/** Every binding of a model as [name, path] pairs (`images` as `images[0]`, …). */
export function bindingEntries(bindings: WorkflowBindings): [string, string][] {
  const entries: [string, string][] = [];
  for (const [name, value] of Object.entries(bindings)) {
    if (Array.isArray(value))
      for (const [i, path] of (value as string[]).entries()) entries.push([`${name}[${i}]`, path]);
    else if (typeof value === 'string') entries.push([name, value]);
  }
  return entries;
}

/**
 * Parses a workflow file's text: it must be ComfyUI's API format (what "Export (API)" saves),
 * an object of nodes with `class_type` and `inputs`. The UI format (`nodes` and `links`
 * arrays) is refused with how to get the other.
 */
export function parseWorkflow(text: string): WorkflowGraph {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('not a workflow: the top level must be an object of nodes');
  const top = parsed as Record<string, unknown>;
  if (Array.isArray(top.nodes) && Array.isArray(top.links))
    throw new Error('this is the editor format; save the workflow with "Export (API)" in ComfyUI');
  const ids = Object.keys(top);
  if (ids.length === 0) throw new Error('the workflow has no nodes');
  for (const id of ids) {
    const node = top[id] as Partial<WorkflowNode> | null;
    if (
      typeof node !== 'object' ||
      node === null ||
      typeof node.class_type !== 'string' ||
      typeof node.inputs !== 'object' ||
      node.inputs === null ||
      Array.isArray(node.inputs)
    ) {
      throw new Error(`node "${id}" is not an API-format node (it needs class_type and an inputs object)`);
    }
  }
  return top as WorkflowGraph;
}

/**
 * The problems of `bindings` against `graph`: each binding must name a node input that exists. Empty when all is well.
 */
export function bindingProblems(graph: WorkflowGraph, bindings: WorkflowBindings): string[] {
  const problems: string[] = [];
  for (const [name, path] of bindingEntries(bindings)) {
    const target = parseBinding(path);
    if (!target) {
      problems.push(`bindings.${name}: "${path}" is not "<node id>.inputs.<name>"`);
      continue;
    }
    const node = graph[target.node];
    if (!node) problems.push(`bindings.${name}: no node "${target.node}" in the workflow`);
    else if (!(target.input in node.inputs)) {
      problems.push(
        `bindings.${name}: node "${target.node}" (${node.class_type}) has no input "${target.input}" (it has: ${Object.keys(node.inputs).join(', ') || 'none'})`,
      );
    }
  }
  return problems;
}

/**
 * The problems of a model's parameter bindings (name → node input) against `graph`: each must
 * name a node input that exists, and neither a parameter's name nor its node input may be one
 * of the built-in bindings' (the two would fight over the value). Empty when all is well.
 */
export function parameterBindingProblems(
  graph: WorkflowGraph,
  bindings: WorkflowBindings,
  parameters: Readonly<Record<string, string>>,
): string[] {
  const problems: string[] = [];
  const builtIn = new Map(bindingEntries(bindings).map(([name, path]) => [path, name]));
  const taken = new Map<string, string>();
  for (const [name, path] of Object.entries(parameters)) {
    if ((BUILT_IN_BINDING_NAMES as readonly string[]).includes(name))
      problems.push(`parameters.${name}: the name of a built-in binding; choose another`);
    const target = parseBinding(path);
    if (!target) {
      problems.push(`parameters.${name}.binding: "${path}" is not "<node id>.inputs.<name>"`);
      continue;
    }
    const node = graph[target.node];
    if (!node) problems.push(`parameters.${name}.binding: no node "${target.node}" in the workflow`);
    else if (!(target.input in node.inputs)) {
      problems.push(
        `parameters.${name}.binding: node "${target.node}" (${node.class_type}) has no input "${target.input}" (it has: ${Object.keys(node.inputs).join(', ') || 'none'})`,
      );
    }
    const clash = builtIn.get(path) ?? (taken.has(path) ? `parameters.${taken.get(path)}` : undefined);
    if (clash)
      problems.push(
        `parameters.${name}.binding: "${path}" is bound already (${clash.startsWith('parameters.') ? clash : `bindings.${clash}`})`,
      );
    taken.set(path, name);
  }
  return problems;
}

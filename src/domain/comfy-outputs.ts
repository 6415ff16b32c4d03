/**
 * Which nodes of a ComfyUI workflow make an image model's items (docs/comfyui.md#every-output): every file-saving image
 * node by default, or the ones a model names in `outputs`.
 * Known at config load from the graph alone, without the server.
 */
import type { WorkflowGraph } from './comfy-workflows.js';

/**
 * Nodes that show an image without writing it to the output folder (PreviewImage writes to `temp`), or send it
 * elsewhere.
 */
const NOT_SAVED = /preview|websocket/i;
/**
 * Image save nodes: ComfyUI's SaveImage, SaveAnimatedWEBP and SaveAnimatedPNG, and custom ones named alike ("Image
 * Save", SaveImageExtended).
 */
const SAVES_IMAGES = /save.*(image|animated)|image.*save/i;

/** Node ids ordered as ComfyUI's history lists outputs here: numerically, then by text. */
const byNodeId = (a: string, b: string) => Number(a) - Number(b) || a.localeCompare(b);

/**
 * The workflow's image save nodes, in node id order: nodes no other node links to whose class
 * saves images (SaveImage, SaveAnimatedWEBP, …; never PreviewImage). A dangling helper node (a
 * PrimitiveString that only holds the prompt) is not one.
 */
export function saveNodes(graph: WorkflowGraph): string[] {
  const linked = new Set<string>();
  for (const node of Object.values(graph)) {
    for (const value of Object.values(node.inputs))
      if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number')
        linked.add(value[0]);
  }
  return Object.keys(graph)
    .filter((id) => !linked.has(id) && SAVES_IMAGES.test(graph[id].class_type) && !NOT_SAVED.test(graph[id].class_type))
    .sort(byNodeId);
}

/**
 * The problems of a model's `outputs` against its workflow: each a node of it, named once, not a preview. Empty when
 * all is well.
 */
export function outputsProblems(graph: WorkflowGraph, outputs: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const id of outputs) {
    const node = graph[id];
    if (!node) problems.push(`outputs: no node "${id}" in the workflow`);
    else if (NOT_SAVED.test(node.class_type))
      problems.push(`outputs: node "${id}" (${node.class_type}) writes no output file`);
    if (seen.has(id)) problems.push(`outputs: node "${id}" is named twice`);
    seen.add(id);
  }
  return problems;
}

/**
 * The output nodes whose files are the items of one run, in order: the model's `outputs`, or the
 * save nodes found when there are several; undefined for one save node (or none recognised):
 * one item per run, the first file the job wrote, as for any workflow.
 */
export function runOutputs(graph: WorkflowGraph, named: readonly string[] | undefined): string[] | undefined {
  if (named) return [...named];
  const found = saveNodes(graph);
  return found.length > 1 ? found : undefined;
}

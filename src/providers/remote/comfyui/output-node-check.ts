import type { LoadedWorkflow } from '../../../domain/comfy-workflows.js';
import type { ObjectInfo } from './object-info.js';

/**
 * The problems of an image model's output nodes (docs/comfyui.md#every-output) against a
 * server's node catalogue: each node whose files are items must be of a class the server runs as
 * an output node (OUTPUT_NODE), or it writes nothing and its items fail. Classes not installed are
 * graphProblems' to report. Empty when all is well, or when the model has one output per run.
 */
export function outputNodeProblems(info: ObjectInfo, workflow: LoadedWorkflow): string[] {
  const problems: string[] = [];
  for (const id of workflow.outputs ?? []) {
    const node = workflow.graph[id];
    const nodeClass = node && info[node.class_type];
    if (nodeClass && nodeClass.output_node !== true) {
      problems.push(
        `outputs: node "${id}" (${node.class_type}) is not an output node on the server: it writes no file, so its items would fail (name the output nodes in the model's outputs)`,
      );
    }
  }
  return problems;
}

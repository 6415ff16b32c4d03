// How the executor reads a prompt: which nodes to run and in what order, and each node's input
// signature (what ComfyUI's cache is keyed by).
import { createHash } from 'node:crypto';
import type { Prompt } from './validate.js';

/** An input linked to another node's output: [node id, output slot]. */
export const isLink = (value: unknown): value is [string, number] => Array.isArray(value) && value.length === 2;

/**
 * The nodes to run, inputs first (ExecutionList's order): each output, and the nodes it needs
 * that are not cached. A cached output is still staged (to show its cached result).
 */
export function executionOrder(prompt: Prompt, outputs: string[], cached: Set<string>): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (id: string, isOutput: boolean) => {
    if (seen.has(id) || (cached.has(id) && !isOutput)) return;
    seen.add(id);
    if (!cached.has(id))
      for (const value of Object.values(prompt[id].inputs)) if (isLink(value)) visit(String(value[0]), false);
    order.push(id);
  };
  for (const output of outputs) visit(output, true);
  return order;
}

/**
 * Each node's input signature: its class, its literal inputs and its inputs' signatures.
 * `fileOf` finds LoadImage's file: its IS_CHANGED is the file's hash, so a new upload under the
 * same name runs it again.
 */
export function inputSignatures(prompt: Prompt, fileOf: (name: string) => Buffer | undefined): Map<string, string> {
  const memo = new Map<string, string>();
  const signature = (id: string): string => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    memo.set(id, 'cycle');
    // Nodes no output needs were not validated: they may lack inputs, or link to nothing.
    const node = prompt[id] ?? { class_type: 'missing', inputs: {} };
    const inputs = Object.keys(node.inputs ?? {})
      .sort()
      .map((name) => {
        const value = node.inputs[name];
        return isLink(value) ? [name, signature(String(value[0])), value[1]] : [name, value];
      });
    const file = node.class_type === 'LoadImage' ? fileOf(String(node.inputs.image)) : undefined;
    const changed = file ? createHash('sha256').update(file).digest('hex') : null;
    const result = JSON.stringify([node.class_type, inputs, changed]);
    memo.set(id, result);
    return result;
  };
  for (const id of Object.keys(prompt)) signature(id);
  return memo;
}

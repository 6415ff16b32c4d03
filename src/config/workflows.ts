import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { bindingProblems, type LoadedWorkflow, parseWorkflow, type WorkflowBindings, type WorkflowGraph } from '../domain/comfy-workflows.js';

export type { LoadedWorkflow } from '../domain/comfy-workflows.js';

/** Reads and checks one model's workflow; throws an Error naming what is wrong. */
export function loadWorkflow(file: string, baseDir: string, bindings: WorkflowBindings): LoadedWorkflow {
  const path = isAbsolute(file) ? file : resolve(baseDir, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let graph: WorkflowGraph;
  try {
    graph = parseWorkflow(text);
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
  const problems = bindingProblems(graph, bindings);
  if (problems.length > 0) throw new Error(`${path}: ${problems.join('; ')}`);
  return { file: path, graph, bindings };
}

/** Reads a loaded workflow's file again (doctor): the problems it has now, none when it still parses and every binding names a node input. */
export function recheckWorkflow(workflow: LoadedWorkflow): string[] {
  try {
    loadWorkflow(workflow.file, '/', workflow.bindings);
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

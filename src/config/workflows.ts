import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { outputsProblems, runOutputs } from '../domain/comfy-outputs.js';
import {
  bindingProblems,
  type LoadedWorkflow,
  parameterBindingProblems,
  parseWorkflow,
  type WorkflowBindings,
  type WorkflowGraph,
} from '../domain/comfy-workflows.js';

export type { LoadedWorkflow } from '../domain/comfy-workflows.js';

/** Where a model's workflow file is: as written when absolute, else in `baseDir` (the config file's folder). */
export const workflowPath = (file: string, baseDir: string): string =>
  isAbsolute(file) ? file : resolve(baseDir, file);

/** Reads and checks one model's workflow; throws an Error naming what is wrong. */
export function loadWorkflow(
  file: string,
  baseDir: string,
  bindings: WorkflowBindings,
  parameters?: Readonly<Record<string, string>>,
): LoadedWorkflow {
  const path = workflowPath(file, baseDir);
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
  const problems = [
    ...bindingProblems(graph, bindings),
    ...(parameters ? parameterBindingProblems(graph, bindings, parameters) : []),
  ];
  if (problems.length > 0) throw new Error(`${path}: ${problems.join('; ')}`);
  return parameters ? { file: path, graph, bindings, parameters } : { file: path, graph, bindings };
}

/**
 * Reads a loaded workflow's file again (doctor): the problems it has now, none when it still parses and every binding
 * names a node input.
 */
export function recheckWorkflow(workflow: LoadedWorkflow): string[] {
  try {
    const reread = loadWorkflow(workflow.file, '/', workflow.bindings, workflow.parameters);
    return workflow.namedOutputs
      ? outputsProblems(reread.graph, workflow.namedOutputs).map((problem) => `${workflow.file}: ${problem}`)
      : [];
  } catch (err) {
    return [(err as Error).message];
  }
}

/** A model's declared parameters as the workflow needs them: each name's binding (undefined when it declares none). */
export function parameterBindings(
  parameters: Readonly<Record<string, { binding: string }>> | undefined,
): Record<string, string> | undefined {
  return (
    parameters && Object.fromEntries(Object.entries(parameters).map(([name, parameter]) => [name, parameter.binding]))
  );
}

/**
 * An image model's workflow with the output nodes of its runs (config `outputs`, or its save nodes); throws an Error
 * naming what is wrong with `outputs`.
 */
export function withRunOutputs(workflow: LoadedWorkflow, named: readonly string[] | undefined): LoadedWorkflow {
  const problems = named ? outputsProblems(workflow.graph, named) : [];
  if (problems.length > 0) throw new Error(problems.join('; '));
  const outputs = runOutputs(workflow.graph, named);
  return { ...workflow, ...(outputs && { outputs }), ...(named && { namedOutputs: [...named] }) };
}

import {
  type LoadedWorkflow,
  parseBinding,
  type WorkflowBindings,
  type WorkflowGraph,
} from '../../../domain/comfy-workflows.js';
import type { ModelParameter } from '../../../domain/model-parameters.js';
import { ProviderError } from '../../../domain/task-status.js';
import type { ComfyHttp } from './comfy-http.js';

/**
 * One input as INPUT_TYPES declares it: a type name ("INT", "STRING", "IMAGE", "INT,FLOAT", "*",
 * "COMBO") or a combo's list of values, then its options (min, max, default, and for a "COMBO"
 * type its `options`).
 */
export type InputDeclaration = [type: string | unknown[], options?: Record<string, unknown>];

/** One node class as GET /object_info describes it (server.py node_info); only what the checks read is typed. */
export interface NodeInfo {
  input: {
    required?: Record<string, InputDeclaration>;
    optional?: Record<string, InputDeclaration>;
    hidden?: Record<string, unknown>;
  };
  /** RETURN_TYPES: what each output slot carries. */
  output?: string[];
  output_node?: boolean;
  [key: string]: unknown;
}

/**
 * GET /object_info as ComfyUI answers it: node class → its inputs (required/optional, each [type or list of values,
 * options]), output_node, …
 */
export type ObjectInfo = Record<string, NodeInfo>;

/** Asks the server for its node catalogue; an answer that is not an object of classes is a PROVIDER_ERROR. */
export async function readObjectInfo(http: ComfyHttp, signal?: AbortSignal): Promise<ObjectInfo> {
  const answer = await http.objectInfo(signal);
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
    throw new ProviderError(
      'PROVIDER_ERROR',
      'GET /object_info answered something that is not an object of node classes',
    );
  const info: ObjectInfo = {};
  for (const [name, node] of Object.entries(answer as Record<string, unknown>)) {
    // A class whose INPUT_TYPES failed on the server comes without `input`: known, nothing to check of it.
    const input =
      typeof node === 'object' &&
      node !== null &&
      typeof (node as NodeInfo).input === 'object' &&
      (node as NodeInfo).input !== null
        ? (node as NodeInfo).input
        : {};
    info[name] = { ...(node as object), input } as NodeInfo;
  }
  return info;
}

/** Bindings as the provider reads them (video workflows add fps and frames). */
type Bindings = WorkflowBindings & { fps?: string; frames?: string };

/** What each binding's input must take: the types that fit, and how to say it. */
const BINDING_TYPES: Record<string, { fits: (type: string | unknown[]) => boolean; wanted: string }> = {
  prompt: { fits: (type) => accepts(type, 'STRING'), wanted: 'text (STRING)' },
  negativePrompt: { fits: (type) => accepts(type, 'STRING'), wanted: 'text (STRING)' },
  seed: { fits: (type) => accepts(type, 'INT'), wanted: 'INT' },
  width: { fits: (type) => accepts(type, 'INT'), wanted: 'INT' },
  height: { fits: (type) => accepts(type, 'INT'), wanted: 'INT' },
  batchSize: { fits: (type) => accepts(type, 'INT'), wanted: 'INT' },
  frames: { fits: (type) => accepts(type, 'INT'), wanted: 'INT' },
  fps: { fits: (type) => accepts(type, 'INT') || accepts(type, 'FLOAT'), wanted: 'INT or FLOAT' },
  // ComfyUI checks an uploaded name against the input's list of files (LoadImage's `image`).
  images: { fits: isCombo, wanted: 'an image name (a list of file names, as LoadImage\'s "image")' },
};

/** A combo: a list of values, or the "COMBO" type newer nodes declare with their values in `options`. */
function isCombo(type: string | unknown[]): boolean {
  return Array.isArray(type) || type === 'COMBO';
}

/** Whether a declared type takes a literal of `wanted`: the type itself, a union naming it ("INT,FLOAT"), or "*". */
function accepts(type: string | unknown[], wanted: string): boolean {
  if (isCombo(type) || typeof type !== 'string') return false;
  return type === '*' || type.split(',').includes(wanted);
}

const describeType = (type: string | unknown[]): string => (isCombo(type) ? 'a list of values (COMBO)' : String(type));

/** A value ComfyUI reads as a link: [node id, output slot]. */
const isLink = (value: unknown): value is [unknown, unknown] => Array.isArray(value);

/**
 * The problems of a graph against a server's node catalogue: node classes not installed, required
 * inputs missing, links to nodes that do not exist (or to an output slot they lack), no output
 * node, and (with bindings) bound inputs the class does not declare or of a type that does not fit
 * the binding. A bound input that is a link in the graph is fine: the binding replaces the link.
 * Empty when all is well. Messages name the node id, its class and the input.
 */
export function graphProblems(info: ObjectInfo, graph: WorkflowGraph, bindings?: Bindings): string[] {
  const problems: string[] = [];
  const bound = new Set(bindings ? boundInputs(bindings) : []);
  let outputs = 0;
  let missingClass = false;
  for (const [id, node] of Object.entries(graph)) {
    const where = `node "${id}" (${node.class_type})`;
    const nodeClass = info[node.class_type];
    if (!nodeClass) {
      problems.push(`${where}: the node class ${node.class_type} is not installed on the server`);
      missingClass = true;
      continue;
    }
    if (nodeClass.output_node === true) outputs += 1;
    for (const name of Object.keys(nodeClass.input.required ?? {})) {
      if (!(name in node.inputs) && !bound.has(`${id}.${name}`))
        problems.push(`${where}: the required input "${name}" is missing`);
    }
    for (const [name, value] of Object.entries(node.inputs)) {
      if (!isLink(value) || bound.has(`${id}.${name}`)) continue;
      const problem = linkProblem(info, graph, value);
      if (problem) problems.push(`${where}: input "${name}" ${problem}`);
    }
  }
  // A class not installed may be the output: said once it is.
  if (outputs === 0 && !missingClass)
    problems.push('the workflow has no output node (such as SaveImage): the server would run nothing');
  if (bindings) problems.push(...bindingTypeProblems(info, graph, bindings));
  return problems;
}

/** "node.input" of every binding, to tell a bound input from one the graph must carry itself. */
function boundInputs(bindings: Bindings): string[] {
  const paths = Object.values(bindings).flatMap((value) =>
    Array.isArray(value) ? value : typeof value === 'string' ? [value] : [],
  );
  return paths.flatMap((path) => {
    const target = parseBinding(path);
    return target ? [`${target.node}.${target.input}`] : [];
  });
}

/** What is wrong with a link, or undefined: the node it names must exist and have that output slot. */
function linkProblem(info: ObjectInfo, graph: WorkflowGraph, link: unknown[]): string | undefined {
  const [from, slot] = link;
  if (link.length !== 2 || typeof slot !== 'number')
    return `is a list but not a link [node id, output slot]: ${JSON.stringify(link)}`;
  const source = graph[String(from)];
  if (!source) return `links to node "${String(from)}", which is not in the workflow`;
  const outputs = info[source.class_type]?.output;
  // A missing class is reported on its own node.
  if (outputs && (slot < 0 || slot >= outputs.length))
    return `links to output ${slot} of node "${String(from)}" (${source.class_type}), which has ${outputs.length} output(s)`;
  return undefined;
}

/** Each binding's input must be declared by its node's class, with a type that takes what is bound. */
function bindingTypeProblems(info: ObjectInfo, graph: WorkflowGraph, bindings: Bindings): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(bindings)) {
    const rule = BINDING_TYPES[name];
    if (!rule) continue;
    const paths = Array.isArray(value)
      ? (value as string[]).map((path, i) => [`${name}[${i}]`, path] as const)
      : typeof value === 'string'
        ? [[name, value] as const]
        : [];
    for (const [label, path] of paths) {
      const target = parseBinding(path);
      const node = target ? graph[target.node] : undefined;
      // Bindings that name no node input are refused at config load; a missing class is reported on its node.
      const nodeClass = node ? info[node.class_type] : undefined;
      if (!target || !node || !nodeClass) continue;
      const where = `bindings.${label}: node "${target.node}" (${node.class_type}) input "${target.input}"`;
      const declared = nodeClass.input.required?.[target.input] ?? nodeClass.input.optional?.[target.input];
      if (!declared) {
        problems.push(
          `${where} is not an input of ${node.class_type} on the server (it has: ${declaredInputs(nodeClass).join(', ') || 'none'})`,
        );
        continue;
      }
      if (!rule.fits(declared[0])) problems.push(`${where} is ${describeType(declared[0])}, not ${rule.wanted}`);
    }
  }
  return problems;
}

const declaredInputs = (node: NodeInfo): string[] => [
  ...Object.keys(node.input.required ?? {}),
  ...Object.keys(node.input.optional ?? {}),
];

/**
 * Everything a server's catalogue says against one model's workflow: its graph and bindings, then its declared
 * parameters.
 */
export function workflowFitProblems(
  info: ObjectInfo,
  workflow: LoadedWorkflow,
  parameters?: Readonly<Record<string, ModelParameter>>,
): string[] {
  return [
    ...graphProblems(info, workflow.graph, workflow.bindings),
    ...(parameters ? parameterProblems(info, workflow.graph, parameters) : []),
  ];
}

/** What each parameter type must be bound to: the declared types that take its values. */
const PARAMETER_TYPES: Record<ModelParameter['type'], { fits: (type: string | unknown[]) => boolean; wanted: string }> =
  {
    integer: { fits: (type) => accepts(type, 'INT'), wanted: 'INT' },
    number: { fits: (type) => accepts(type, 'FLOAT') || accepts(type, 'INT'), wanted: 'FLOAT or INT' },
    string: { fits: (type) => accepts(type, 'STRING'), wanted: 'text (STRING)' },
    boolean: { fits: (type) => accepts(type, 'BOOLEAN'), wanted: 'BOOLEAN' },
    enum: { fits: isCombo, wanted: 'a list of values (COMBO)' },
  };

/** A combo's values: its list, or a "COMBO" type's `options`; undefined when not a combo. */
const comboValues = ([type, options]: InputDeclaration): unknown[] | undefined =>
  Array.isArray(type) ? type : type === 'COMBO' && Array.isArray(options?.options) ? options.options : undefined;

/**
 * The problems of a model's declared parameters against a server's node catalogue: each bound
 * input declared by its node's class with a type that takes the parameter's values, an enum's
 * values among the input's, and bounds within the input's own (ComfyUI refuses a value past
 * them). Nodes whose class is not installed are left to graphProblems. Empty when all is well.
 */
export function parameterProblems(
  info: ObjectInfo,
  graph: WorkflowGraph,
  parameters: Readonly<Record<string, ModelParameter>>,
): string[] {
  const problems: string[] = [];
  for (const [name, parameter] of Object.entries(parameters)) {
    const target = parseBinding(parameter.binding);
    const node = target ? graph[target.node] : undefined;
    const nodeClass = node ? info[node.class_type] : undefined;
    if (!target || !node || !nodeClass) continue;
    const where = `parameters.${name}: node "${target.node}" (${node.class_type}) input "${target.input}"`;
    const declared = nodeClass.input.required?.[target.input] ?? nodeClass.input.optional?.[target.input];
    if (!declared) {
      problems.push(
        `${where} is not an input of ${node.class_type} on the server (it has: ${declaredInputs(nodeClass).join(', ') || 'none'})`,
      );
      continue;
    }
    const rule = PARAMETER_TYPES[parameter.type];
    if (!rule.fits(declared[0])) {
      problems.push(
        `${where} is ${describeType(declared[0])}, not ${rule.wanted} for a parameter of type ${parameter.type}`,
      );
      continue;
    }
    const values = comboValues(declared);
    const missing =
      parameter.type === 'enum' && values ? (parameter.values ?? []).filter((value) => !values.includes(value)) : [];
    if (missing.length > 0)
      problems.push(
        `${where} does not offer ${missing.map((value) => JSON.stringify(value)).join(', ')} on the server`,
      );
    const options = declared[1] ?? {};
    if (typeof options.min === 'number' && parameter.min !== undefined && parameter.min < options.min)
      problems.push(`${where} takes at least ${options.min}, but the parameter's min is ${parameter.min}`);
    if (typeof options.max === 'number' && parameter.max !== undefined && parameter.max > options.max)
      problems.push(`${where} takes at most ${options.max}, but the parameter's max is ${parameter.max}`);
  }
  return problems;
}

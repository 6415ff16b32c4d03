// execution.validate_prompt and validate_inputs, ported: the same checks in the same order, the
// same error objects (type, message, details, extra_info), the same node_errors aggregation.
import type { InputSpec, NodeClass } from './catalogue.js';
import { convertLiteral, PyError, pyItem, pyNumber, pyRepr } from './py-values.js';

export interface ErrorDetail {
  type: string;
  message: string;
  details: string;
  extra_info: Record<string, unknown>;
}

export interface NodeError {
  errors: ErrorDetail[];
  dependent_outputs: string[];
  class_type: string;
}

export type Prompt = Record<string, { class_type: string; inputs: Record<string, unknown> }>;

export type Validation =
  | { valid: true; outputs: string[]; nodeErrors: Record<string, NodeError> }
  | { valid: false; error: ErrorDetail; nodeErrors: Record<string, NodeError> };

type Checked = [valid: boolean, errors: ErrorDetail[], nodeId: string];

interface Context {
  prompt: Prompt;
  catalogue: Record<string, NodeClass>;
  /** LoadImage's VALIDATE_INPUTS: whether an (annotated) input file exists. */
  fileExists: (name: string) => boolean;
  validated: Map<string, Checked>;
}

const detail = (
  type: string,
  message: string,
  details: string,
  extra_info: Record<string, unknown> = {},
): ErrorDetail => ({ type, message, details, extra_info });

/**
 * comfy_execution.validation.validate_node_input: a link's type fits the input's ("*" fits anything; "A,B" is a union).
 */
function typeFits(received: unknown, wanted: unknown): boolean {
  if (received === wanted || received === '*' || wanted === '*') return true;
  if (typeof received !== 'string' || typeof wanted !== 'string') return false;
  const accepted = new Set(wanted.split(','));
  return received.split(',').every((type) => accepted.has(type));
}

/** Checks one literal: converted in place (as ComfyUI does to the queued prompt), then min, max and combo list. */
function checkLiteral(
  inputs: Record<string, unknown>,
  name: string,
  spec: InputSpec,
  custom: boolean,
): ErrorDetail | null {
  const [type, options = {}] = spec;
  const info = [type, options];
  let value = inputs[name];
  if (value !== null && typeof value === 'object' && '__value__' in value)
    value = inputs[name] = (value as { __value__: unknown }).__value__;
  try {
    if (typeof type === 'string') value = inputs[name] = convertLiteral(type, value);
  } catch (err) {
    const message = (err as Error).message;
    return detail(
      'invalid_input_type',
      `Failed to convert an input value to a ${type} value`,
      `${name}, ${pyRepr(value)}, ${message}`,
      {
        input_name: name,
        input_config: info,
        received_value: value,
        exception_message: message,
      },
    );
  }
  if (custom) return null;
  const isFloat = type === 'FLOAT';
  const extra = { input_name: name, input_config: info, received_value: value };
  if (typeof options.min === 'number' && typeof value === 'number' && value < options.min)
    return detail(
      'value_smaller_than_min',
      `Value ${pyNumber(value, isFloat)} smaller than min of ${pyNumber(options.min, isFloat)}`,
      name,
      extra,
    );
  if (typeof options.max === 'number' && typeof value === 'number' && value > options.max)
    return detail(
      'value_bigger_than_max',
      `Value ${pyNumber(value, isFloat)} bigger than max of ${pyNumber(options.max, isFloat)}`,
      name,
      extra,
    );
  if (Array.isArray(type) && !type.includes(value as string)) {
    // Long lists (scanned model files) are not sent back whole.
    const long = type.length > 20;
    return detail(
      'value_not_in_list',
      'Value not in list',
      `${name}: ${pyRepr(value)} not in ${long ? `(list of length ${type.length})` : pyRepr(type)}`,
      {
        ...extra,
        input_config: long ? null : info,
      },
    );
  }
  return null;
}

/** Checks a link: its shape, the type it carries, then the linked node (recursively). */
function checkLink(
  ctx: Context,
  name: string,
  spec: InputSpec,
  link: unknown[],
): { error?: ErrorDetail; upstreamValid: boolean } {
  const info = [spec[0], spec[1] ?? {}];
  if (link.length !== 2)
    return {
      error: detail('bad_linked_input', 'Bad linked input, must be a length-2 list of [node_id, slot_index]', name, {
        input_name: name,
        input_config: info,
        received_value: link,
      }),
      upstreamValid: true,
    };
  const [fromId, slot] = link;
  // Outside any try, as in ComfyUI: a link to a missing node fails the whole node's validation.
  const fromClass = ctx.catalogue[pyItem(pyItem(ctx.prompt, fromId), 'class_type') as string];
  if (typeof slot !== 'number' || !Number.isInteger(slot))
    throw new PyError(
      'TypeError',
      `tuple indices must be integers or slices, not ${typeof slot === 'string' ? 'str' : 'float'}`,
    );
  const received = fromClass.output.at(slot);
  if (received === undefined) throw new PyError('IndexError', 'tuple index out of range');
  if (!typeFits(received, spec[0]))
    return {
      error: detail(
        'return_type_mismatch',
        'Return type mismatch between linked nodes',
        `${name}, received_type(${received}) mismatch input_type(${spec[0]})`,
        {
          input_name: name,
          input_config: info,
          received_type: received,
          linked_node: link,
        },
      ),
      upstreamValid: true,
    };
  try {
    return { upstreamValid: validateInputs(ctx, fromId as string)[0] };
  } catch (err) {
    const reasons = [
      detail('exception_during_inner_validation', 'Exception when validating inner node', (err as Error).message, {
        input_name: name,
        input_config: info,
        exception_message: (err as Error).message,
        exception_type: (err as PyError).pyType ?? 'Exception',
        traceback: [],
        linked_node: link,
      }),
    ];
    ctx.validated.set(fromId as string, [false, reasons, fromId as string]);
    return { upstreamValid: false };
  }
}

function validateInputs(ctx: Context, id: string): Checked {
  const done = ctx.validated.get(id);
  if (done) return done;
  const node = pyItem(ctx.prompt, id);
  const inputs = pyItem(node, 'inputs') as Record<string, unknown>;
  const nodeClass = ctx.catalogue[(node as { class_type: string }).class_type];
  const declared = { ...nodeClass.input.required, ...nodeClass.input.optional };
  const custom = nodeClass.validateInputs ?? [];
  const errors: ErrorDetail[] = [];
  let valid = true;
  for (const [name, spec] of Object.entries(declared)) {
    if (!(name in inputs)) {
      if (name in nodeClass.input.required)
        errors.push(detail('required_input_missing', 'Required input is missing', name, { input_name: name }));
      continue;
    }
    const value = inputs[name];
    if (Array.isArray(value)) {
      const { error, upstreamValid } = checkLink(ctx, name, spec, value);
      if (error) errors.push(error);
      if (!upstreamValid) valid = false;
      continue;
    }
    const error = checkLiteral(inputs, name, spec, custom.includes(name));
    if (error) errors.push(error);
  }
  // LoadImage's VALIDATE_INPUTS(image): "Invalid image file: <name>" unless the file is in its folder.
  if (custom.includes('image') && typeof inputs.image === 'string' && !ctx.fileExists(inputs.image))
    errors.push(
      detail(
        'custom_validation_failed',
        'Custom validation failed for node',
        `image - Invalid image file: ${inputs.image}`,
        { input_name: 'image' },
      ),
    );
  const checked: Checked = errors.length > 0 || !valid ? [false, errors, id] : [true, [], id];
  ctx.validated.set(id, checked);
  return checked;
}

/** The first check of validate_prompt: every node names a class that exists; there is an output. */
function checkClasses(
  prompt: Prompt,
  catalogue: Record<string, NodeClass>,
  targets: string[] | null,
): ErrorDetail | string[] {
  const outputs: string[] = [];
  for (const [id, node] of Object.entries(prompt)) {
    if (node === null || typeof node !== 'object' || !('class_type' in node))
      return detail(
        'invalid_prompt',
        'Cannot execute because a node is missing the class_type property.',
        `Node ID '#${id}'`,
      );
    const nodeClass = catalogue[node.class_type];
    if (!nodeClass)
      return detail(
        'invalid_prompt',
        `Cannot execute because node ${node.class_type} does not exist.`,
        `Node ID '#${id}'`,
      );
    if (nodeClass.outputNode && (targets === null || targets.includes(id))) outputs.push(id);
  }
  if (outputs.length === 0) return detail('prompt_no_outputs', 'Prompt has no outputs', '');
  return outputs;
}

/**
 * Validates an API-format prompt. Throws (a 500 in ComfyUI, whose handler does not catch it) when
 * the prompt is not an object of nodes.
 */
export function validatePrompt(
  prompt: unknown,
  catalogue: Record<string, NodeClass>,
  fileExists: (name: string) => boolean,
  targets: string[] | null = null,
): Validation {
  if (prompt === null || typeof prompt !== 'object' || Array.isArray(prompt))
    throw new PyError('TypeError', 'prompt is not a dict');
  const outputs = checkClasses(prompt as Prompt, catalogue, targets);
  if (!Array.isArray(outputs)) return { valid: false, error: outputs, nodeErrors: {} };
  const ctx: Context = { prompt: prompt as Prompt, catalogue, fileExists, validated: new Map() };
  const good: string[] = [];
  const failed: [string, ErrorDetail[]][] = [];
  const nodeErrors: Record<string, NodeError> = {};
  for (const output of outputs) {
    let checked: Checked;
    try {
      checked = validateInputs(ctx, output);
    } catch (err) {
      const reasons = [
        detail('exception_during_validation', 'Exception when validating node', (err as Error).message, {
          exception_type: (err as PyError).pyType ?? 'Exception',
          traceback: [],
        }),
      ];
      checked = [false, reasons, output];
      ctx.validated.set(output, checked);
    }
    if (checked[0]) {
      good.push(output);
      continue;
    }
    failed.push([output, checked[1]]);
    // Every invalid node with reasons seen so far names this output (nodes invalid only because of
    // an upstream node carry no reasons and are left out), as ComfyUI aggregates them.
    for (const [id, [valid, reasons]] of ctx.validated) {
      if (valid || reasons.length === 0) continue;
      nodeErrors[id] ??= { errors: reasons, dependent_outputs: [], class_type: (prompt as Prompt)[id]?.class_type };
      nodeErrors[id].dependent_outputs.push(output);
    }
  }
  if (good.length > 0) return { valid: true, outputs: good, nodeErrors };
  // Only each failed output's own reasons make the details: empty when the fault is upstream.
  const details = failed.flatMap(([, reasons]) => reasons.map((r) => `${r.message}: ${r.details}`)).join('\n');
  return {
    valid: false,
    error: detail('prompt_outputs_failed_validation', 'Prompt outputs failed validation', details),
    nodeErrors,
  };
}

/**
 * Parameters a ComfyUI model declares (config `parameters`): each a name a request may set in
 * `parameters: { … }`, bound into one node input of the model's workflow. The pure checks of a
 * declaration (config load) and of a request's value (create and estimate) live here.
 */

import { parseUsd } from './money.js';

export type ParameterValue = string | number | boolean;

export interface ModelParameter {
  /** The node input that receives the value, `"<node id>.inputs.<name>"` (never shown to clients). */
  binding: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'enum';
  min?: number;
  max?: number;
  /** enum: the values a request may choose. */
  values?: string[];
  /** string: the longest value, in characters (at most STRING_PARAMETER_MAX). */
  maxLength?: number;
  default: ParameterValue;
  description?: string;
  /** integer and number: value × perUnit USD added to each image's price (each second's of a video). */
  price?: { perUnit: string };
}

/**
 * The most one parameter's value may add to a price, in micro-dollars (1,000 USD): sums over parameters, seconds and
 * items stay exact amounts.
 */
const MAX_PARAMETER_PRICE = 1_000_000_000;

/** The longest string a parameter may take, and the most a declaration may allow. */
export const STRING_PARAMETER_MAX = 2000;

/** Names the built-in bindings use: a parameter may not take one (config load refuses it). */
export const BUILT_IN_BINDING_NAMES = [
  'prompt',
  'negativePrompt',
  'seed',
  'width',
  'height',
  'batchSize',
  'images',
  'fps',
  'frames',
] as const;

/** Why `value` is no value of `parameter`; undefined when it is one. */
export function parameterValueProblem(parameter: ModelParameter, value: unknown): string | undefined {
  switch (parameter.type) {
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value))
        return `must be a${parameter.type === 'integer' ? 'n integer' : ' number'}`;
      if (parameter.type === 'integer' && !Number.isInteger(value)) return 'must be an integer';
      if (parameter.min !== undefined && value < parameter.min) return `must be at least ${parameter.min}`;
      if (parameter.max !== undefined && value > parameter.max) return `must be at most ${parameter.max}`;
      return undefined;
    }
    case 'string': {
      if (typeof value !== 'string') return 'must be a string';
      const longest = parameter.maxLength ?? STRING_PARAMETER_MAX;
      if (value.length > longest) return `must be at most ${longest} characters`;
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'enum':
      return typeof value === 'string' && parameter.values?.includes(value)
        ? undefined
        : `must be one of ${(parameter.values ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
  }
}

/**
 * The problems of one declaration on its own (its fields fit its type, its default is one of its values); empty when
 * all is well.
 */
export function parameterDeclarationProblems(parameter: ModelParameter): string[] {
  const problems: string[] = [];
  const numeric = parameter.type === 'integer' || parameter.type === 'number';
  if (!numeric && (parameter.min !== undefined || parameter.max !== undefined))
    problems.push(`min and max are for integer and number parameters, not ${parameter.type}`);
  if (!numeric && parameter.price) problems.push(`price is for integer and number parameters, not ${parameter.type}`);
  if (numeric && parameter.price) {
    // The price is value × perUnit: unbounded, a request could name any price, past what an amount holds.
    if (parameter.min === undefined || parameter.max === undefined)
      problems.push('a priced parameter needs min and max (its price is value × perUnit)');
    else {
      const most =
        Math.max(Math.abs(parameter.min), Math.abs(parameter.max)) * (parseUsd(parameter.price.perUnit) ?? 0);
      if (most > MAX_PARAMETER_PRICE)
        problems.push(`a value may be priced at most ${MAX_PARAMETER_PRICE / 1_000_000} USD (min and max × perUnit)`);
    }
  }
  if (
    parameter.type === 'integer' &&
    [parameter.min, parameter.max].some((bound) => bound !== undefined && !Number.isInteger(bound))
  )
    problems.push('min and max of an integer are integers');
  if (parameter.min !== undefined && parameter.max !== undefined && parameter.min > parameter.max)
    problems.push(`min (${parameter.min}) is above max (${parameter.max})`);
  if (parameter.type === 'enum') {
    if (!parameter.values || parameter.values.length === 0) problems.push('an enum names its values');
    else if (new Set(parameter.values).size !== parameter.values.length) problems.push('values holds a value twice');
  } else if (parameter.values !== undefined) problems.push(`values are for enum parameters, not ${parameter.type}`);
  if (parameter.maxLength !== undefined && parameter.type !== 'string')
    problems.push(`maxLength is for string parameters, not ${parameter.type}`);
  if (problems.length === 0) {
    const problem = parameterValueProblem(parameter, parameter.default);
    if (problem) problems.push(`default ${JSON.stringify(parameter.default)} ${problem}`);
  }
  return problems;
}

/** Every declared parameter's value: the request's where it set one, else the default. */
export function parameterValues(
  declared: Readonly<Record<string, ModelParameter>>,
  given: Readonly<Record<string, ParameterValue>> = {},
): Record<string, ParameterValue> {
  return Object.fromEntries(
    Object.entries(declared).map(([name, parameter]) => [
      name,
      Object.hasOwn(given, name) ? given[name] : parameter.default,
    ]),
  );
}

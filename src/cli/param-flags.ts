import { Option } from 'commander';
import type { ParameterValue } from '../domain/model-parameters.js';
import { UsageError } from './output.js';

/**
 * `--param NAME=VALUE` of `imgtask generate` and `imgtask video`: each VALUE typed by the chosen
 * model's declared parameter as GET /models (or /video/models) lists it, so a number is sent as a
 * JSON number. Only types and names are checked here (exit 2, nothing sent); bounds and enum
 * values are the server's to refuse.
 */

/**
 * --param, repeatable (a new Option each: commander keeps one per command); `listing` is where the model's parameters
 * are listed.
 */
export const paramOption = (listing: string): Option =>
  new Option(
    '--param <name=value>',
    `a parameter the model declares (${listing} lists them), repeatable; the value is typed as declared`,
  ).argParser((value: string, previous: string[] = []) => [...previous, value]);

/** A declared parameter as the model listing shows it (the fields the CLI reads). */
interface ListedParameter {
  type: 'integer' | 'number' | 'string' | 'boolean' | 'enum';
}

/** A model as the listing shows it. */
interface ListedModel {
  id: string;
  default: boolean;
  parameters?: Readonly<Record<string, ListedParameter>>;
}

const BOOLEANS: Readonly<Record<string, boolean>> = {
  true: true,
  yes: true,
  '1': true,
  false: false,
  no: false,
  '0': false,
};

/**
 * The flags split at their first `=`, in the order given; UsageError for one without `=`, without a name, or a name
 * given twice.
 */
function splitParamFlags(flags: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (const flag of flags) {
    const at = flag.indexOf('=');
    const name = at < 0 ? '' : flag.slice(0, at).trim();
    if (!name) throw new UsageError(`--param must be NAME=VALUE, not "${flag}"`);
    if (pairs.some(([given]) => given === name)) throw new UsageError(`--param ${name} is given twice`);
    pairs.push([name, flag.slice(at + 1)]);
  }
  return pairs;
}

/** The model --model names (`auto` or none: the one the listing marks default); UsageError when there is none. */
function chosenModel(models: readonly ListedModel[], modelId: string | undefined): ListedModel {
  const wanted = modelId === undefined || modelId === 'auto' ? undefined : modelId;
  const model = wanted === undefined ? models.find((m) => m.default) : models.find((m) => m.id === wanted);
  if (model) return model;
  const known = models.map((m) => m.id).join(', ') || 'none';
  throw new UsageError(
    wanted === undefined
      ? `--param: the server marks no default model; name one with --model (models: ${known})`
      : `--param: the server has no model ${wanted} (models: ${known})`,
  );
}

/** One VALUE as its parameter's type takes it; UsageError naming the parameter when it is not one. */
function coerceParam(name: string, text: string, parameter: ListedParameter): ParameterValue {
  switch (parameter.type) {
    case 'integer':
    case 'number': {
      const value = text.trim() === '' ? Number.NaN : Number(text);
      if (!Number.isFinite(value)) throw new UsageError(`--param ${name} must be a number, not "${text}"`);
      if (parameter.type === 'integer' && !Number.isInteger(value))
        throw new UsageError(`--param ${name} must be a whole number, not "${text}"`);
      return value;
    }
    case 'boolean': {
      const value = BOOLEANS[text.trim().toLowerCase()];
      if (value === undefined)
        throw new UsageError(`--param ${name} must be true or false (or yes/no, 1/0), not "${text}"`);
      return value;
    }
    default:
      return text;
  }
}

/**
 * The request's `parameters` from the flags, typed by `model`'s declared parameters; UsageError for a name it does not
 * declare.
 */
function parametersOf(pairs: readonly [string, string][], model: ListedModel): Record<string, ParameterValue> {
  const declared = model.parameters ?? {};
  const names = Object.keys(declared);
  const parameters: Record<string, ParameterValue> = {};
  for (const [name, text] of pairs) {
    const parameter = Object.hasOwn(declared, name) ? declared[name] : undefined;
    if (!parameter) {
      throw new UsageError(
        names.length === 0
          ? `--param ${name}: model ${model.id} declares no parameters`
          : `--param ${name}: model ${model.id} has no parameter "${name}" (it has: ${names.join(', ')})`,
      );
    }
    parameters[name] = coerceParam(name, text, parameter);
  }
  return parameters;
}

/**
 * The request's `parameters` for `--param` flags: undefined (and no request) when none is given;
 * else the flags are checked, then the model listing is read once to type them.
 */
export async function paramsFromFlags(
  flags: readonly string[] | undefined,
  modelId: string | undefined,
  listModels: () => Promise<readonly ListedModel[]>,
): Promise<Record<string, ParameterValue> | undefined> {
  if (!flags?.length) return undefined;
  const pairs = splitParamFlags(flags);
  return parametersOf(pairs, chosenModel(await listModels(), modelId));
}

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { z } from 'zod';
import { modelProviders } from '../domain/provider-lanes.js';
import { configProblems } from './config-problems.js';
import { ConfigError } from './environment.js';
import { describeJsonSyntaxError } from './json-syntax.js';
import { type Config, ConfigSchema, type PemSource } from './schema.js';
import { type LoadedWorkflow, loadWorkflow, parameterBindings, withRunOutputs, workflowPath } from './workflows.js';

/** The settings as the schema gives them, before the workflows are read. */
type ConfigSettings = z.infer<typeof ConfigSchema>;

export { ConfigError, environment } from './environment.js';

const DEFAULT_FILE = new URL('../../config/default.json', import.meta.url);

/** Maps whose entries a config file adds or replaces whole, by id, instead of merging field by field. */
const WHOLE_ENTRY_MAPS = new Set(['models', 'videoModels', 'providers']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Drops documentation keys (`$comment`, `$comment_…`) at every level. */
function stripComments(value: Json): Json {
  if (Array.isArray(value)) return value.map(stripComments);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, inner] of Object.entries(value)) if (!key.startsWith('$comment')) out[key] = stripComments(inner);
  return out;
}

export function deepMerge(base: JsonObject, over: JsonObject, path: string[] = []): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const inWholeMap = path.length === 1 && WHOLE_ENTRY_MAPS.has(path[0]);
    out[key] =
      !inWholeMap && isObject(value) && isObject(base[key])
        ? deepMerge(base[key] as JsonObject, value, [...path, key])
        : value;
  }
  return out;
}

function readJson(path: string | URL, label: string): JsonObject {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`config: cannot read ${label}: ${(err as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as Json;
    if (!isObject(parsed)) throw new Error('the top level must be an object');
    return parsed;
  } catch (err) {
    const reason = err instanceof SyntaxError ? describeJsonSyntaxError(text, err) : (err as Error).message;
    throw new ConfigError(`config: ${label} is not valid JSON: ${reason}`);
  }
}

/**
 * Validates a merged config and reads the workflows its ComfyUI models name (relative to `baseDir`); the error names
 * every offending key.
 */
function validateConfig(raw: unknown, baseDir: string, load: WorkflowLoad = { read: [], broken: null }): Config {
  const result = ConfigSchema.safeParse(raw);
  if (!result.success) {
    const lines = configProblems(ConfigSchema, raw, result.error.issues);
    throw new ConfigError(
      `config: invalid settings (${lines.length === 1 ? 'one problem' : `${lines.length} problems`}):\n${lines.map((line) => `  ${line}`).join('\n')}`,
    );
  }
  const config: Config = {
    ...result.data,
    provenance: withAbsolutePemFiles(result.data.provenance, baseDir),
    workflows: loadModelWorkflows(result.data, baseDir, load),
  };
  if (!config.models[config.defaultModel])
    throw new ConfigError(`config: defaultModel: no model "${config.defaultModel}" in models`);
  for (const [id, model] of Object.entries(config.models)) {
    for (const provider of modelProviders(model)) {
      if (!config.providers[provider])
        throw new ConfigError(`config: models.${id}: no provider "${provider}" in providers`);
    }
  }
  if (!config.videoModels[config.defaultVideoModel])
    throw new ConfigError(`config: defaultVideoModel: no model "${config.defaultVideoModel}" in videoModels`);
  for (const [id, model] of Object.entries(config.videoModels)) {
    const names = modelProviders(model);
    if (names.length === 0)
      throw new ConfigError(`config: videoModels.${id}: name its provider (provider or providers)`);
    for (const name of names) {
      const provider = config.providers[name];
      if (!provider) throw new ConfigError(`config: videoModels.${id}: no provider "${name}" in providers`);
      if (provider.type !== 'placeholder' && provider.type !== 'openai-video' && provider.type !== 'comfyui') {
        throw new ConfigError(
          `config: videoModels.${id}: provider "${name}" (type ${provider.type}) does not make videos`,
        );
      }
    }
  }
  for (const [id, model] of Object.entries(config.models)) {
    for (const name of modelProviders(model)) {
      if (config.providers[name]?.type === 'openai-video')
        throw new ConfigError(`config: models.${id}: provider "${name}" makes videos, not images`);
    }
  }
  if (config.store.driver === 'postgres' && !config.store.postgres.url) {
    throw new ConfigError(
      'config: store.driver is "postgres" but no database is named: set store.postgres.url or IMGTASK_DATABASE_URL',
    );
  }
  for (const name of ['vision', 'chat'] as const) {
    const provider = config.providers[name];
    if (provider && provider.type !== 'openai')
      throw new ConfigError(`config: providers.${name}: must be an OpenAI-compatible provider (type "openai")`);
  }
  return config;
}

/**
 * Reads and checks the workflow of every model served by a ComfyUI provider: it must name a
 * `workflow` and `bindings`, the file must parse as API format, and every binding must name a
 * node input that exists. A workflow on a model with no ComfyUI provider is a mistake too.
 */
function loadModelWorkflows(
  config: ConfigSettings,
  baseDir: string,
  load: WorkflowLoad,
): Record<string, LoadedWorkflow> {
  const workflows: Record<string, LoadedWorkflow> = {};
  const failures: string[] = [];
  const sections = [
    ['models', config.models],
    ['videoModels', config.videoModels],
  ] as const;
  for (const [section, models] of sections) {
    for (const [id, model] of Object.entries(models)) {
      const key = `${section}.${id}`;
      const names = modelProviders(model);
      const missing = names.find((name: string) => !config.providers[name]);
      if (missing) throw new ConfigError(`config: ${key}: no provider "${missing}" in providers`);
      const onComfy = names.some((name: string) => config.providers[name]?.type === 'comfyui');
      if (!onComfy) {
        if (model.workflow !== undefined || model.bindings !== undefined)
          throw new ConfigError(
            `config: ${key}: workflow and bindings are for models served by a ComfyUI provider (type "comfyui")`,
          );
        if (model.parameters !== undefined || model.allowRawWorkflows)
          throw new ConfigError(
            `config: ${key}: parameters and allowRawWorkflows are for models served by a ComfyUI provider (type "comfyui")`,
          );
        if ((model as { outputs?: unknown }).outputs !== undefined)
          throw new ConfigError(`config: ${key}: outputs are for models served by a ComfyUI provider (type "comfyui")`);
        continue;
      }
      if (!model.workflow || !model.bindings)
        throw new ConfigError(
          `config: ${key}: a model served by ComfyUI names its workflow (a file in API format) and its bindings ({ "prompt": "<node id>.inputs.<name>", … })`,
        );
      const imageInputs = model.bindings.images?.length ?? 0;
      if (model.capabilities.maxInputs > imageInputs) {
        throw new ConfigError(
          `config: ${key}: capabilities.maxInputs is ${model.capabilities.maxInputs} but bindings.images names ${imageInputs} input(s): bind one LoadImage input per image`,
        );
      }
      const path = workflowPath(model.workflow, baseDir);
      load.read.push(path);
      try {
        workflows[key] = loadWorkflow(model.workflow, baseDir, model.bindings, parameterBindings(model.parameters));
      } catch (err) {
        // Every workflow is read before refusing, so the refusal names (and a watcher watches) them all.
        failures.push(`config: ${key}.workflow: ${(err as Error).message}`);
        load.broken?.push({ model: key, file: path, problem: (err as Error).message });
        continue;
      }
      if (section === 'models') {
        try {
          workflows[key] = withRunOutputs(workflows[key], (model as { outputs?: string[] }).outputs);
        } catch (err) {
          // Outputs that the workflow file does not have: a problem of that file, as above.
          failures.push(`config: ${key}.${(err as Error).message}`);
          load.broken?.push({ model: key, file: path, problem: (err as Error).message });
          delete workflows[key];
        }
      }
    }
  }
  if (failures.length > 0 && !load.broken) throw new ConfigError(failures.join('\n'));
  return workflows;
}

/** A model's workflow file that did not load (a doctor's load goes on without it). */
export interface WorkflowFailure {
  model: string;
  file: string;
  problem: string;
}

/**
 * What one load reads: every workflow file it names (read or not), and, when it goes on past them, the workflows that
 * did not load.
 */
interface WorkflowLoad {
  read: string[];
  broken: WorkflowFailure[] | null;
}

const notLoaded = new WeakMap<Config, WorkflowFailure[]>();
/** The workflows a config loaded with `keepBrokenWorkflows` left out, each with why. */
export const workflowsNotLoaded = (config: Config): WorkflowFailure[] => notLoaded.get(config) ?? [];

export interface ConfigFlags {
  host?: string;
  port?: number;
}

/** Reads the env settings that shape the config. */
function envOverrides(env: NodeJS.ProcessEnv): JsonObject {
  const server: JsonObject = {};
  if (env.IMGTASK_HOST) server.host = env.IMGTASK_HOST;
  if (env.IMGTASK_PORT) {
    const port = Number(env.IMGTASK_PORT);
    if (!Number.isInteger(port)) throw new ConfigError(`config: IMGTASK_PORT: not a port number: ${env.IMGTASK_PORT}`);
    server.port = port;
  }
  const out: JsonObject = { server };
  if (env.IMGTASK_PUBLIC_URL) out.publicUrl = env.IMGTASK_PUBLIC_URL;
  if (env.IMGTASK_DATABASE_URL) out.store = { postgres: { url: env.IMGTASK_DATABASE_URL } };
  return out;
}

/** Whether a config layer names store.driver itself. */
const setsDriver = (layer: JsonObject | undefined): boolean =>
  isObject(layer?.store) && (layer.store as JsonObject).driver !== undefined;

/**
 * provenance's `{ file }` PEMs are relative to the config file's folder: made absolute here, as workflow files are read
 * from it.
 */
function withAbsolutePemFiles(provenance: Config['provenance'], baseDir: string): Config['provenance'] {
  const absolute = <T extends PemSource | undefined>(source: T): T =>
    source && 'file' in source ? ({ file: resolve(baseDir, source.file) } as T) : source;
  return {
    ...provenance,
    certificate: absolute(provenance.certificate),
    privateKey: absolute(provenance.privateKey),
    trustAnchors: absolute(provenance.trustAnchors),
  };
}

/**
 * Loads the config: defaults → file → env → flags, then validates. `read` receives the files the
 * load read (the config file and every workflow file it names), even when it throws: a refused
 * reload is tried again when one changes. `keepBrokenWorkflows` (doctor): a workflow file that
 * does not load leaves its model without a workflow instead of refusing the config
 * (workflowsNotLoaded says which).
 */
export function loadConfig(
  options: {
    file?: string;
    flags?: ConfigFlags;
    env?: NodeJS.ProcessEnv;
    overrides?: JsonObject;
    read?: string[];
    keepBrokenWorkflows?: boolean;
  } = {},
): Config {
  if (options.file) options.read?.push(resolve(options.file));
  const env = options.env ?? process.env;
  let merged = stripComments(readJson(DEFAULT_FILE, 'config/default.json')) as JsonObject;
  const file = options.file ? (stripComments(readJson(resolve(options.file), options.file)) as JsonObject) : undefined;
  if (file) merged = deepMerge(merged, file);
  if (options.overrides) merged = deepMerge(merged, options.overrides);
  const fromEnv = envOverrides(env);
  // IMGTASK_DATABASE_URL alone is enough to run on PostgreSQL; a config file that names the driver wins.
  if (isObject(fromEnv.store) && !setsDriver(file) && !setsDriver(options.overrides))
    (fromEnv.store as JsonObject).driver = 'postgres';
  merged = deepMerge(merged, fromEnv);
  const server: JsonObject = {};
  if (options.flags?.host !== undefined) server.host = options.flags.host;
  if (options.flags?.port !== undefined) server.port = options.flags.port;
  merged = deepMerge(merged, { server });
  // Workflow files are relative to the config file's folder (the working folder without one).
  const load: WorkflowLoad = { read: options.read ?? [], broken: options.keepBrokenWorkflows ? [] : null };
  const config = validateConfig(merged, options.file ? dirname(resolve(options.file)) : process.cwd(), load);
  if (load.broken?.length) notLoaded.set(config, load.broken);
  return config;
}

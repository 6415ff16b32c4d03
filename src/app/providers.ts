import { environment } from '../config/load.js';
import type { Config, ProviderConfig } from '../config/schema.js';
import type { ConfigSource } from '../config/source.js';
import { bundledFfmpegPath } from '../media/ffmpeg.js';
import { providerRequest } from '../net/provider-http.js';
import { createSafeFetcher } from '../net/safe-fetch.js';
import { limitCalls, limitGenerator } from '../providers/capacity.js';
import { createBasicAltWriter, type ImageTraits } from '../providers/embedded/alt/describer.js';
import { createEmbeddedBackgroundRemover } from '../providers/embedded/background/remover.js';
import { createEmbeddedNsfwRater, type NsfwPrediction } from '../providers/embedded/nsfw/rater.js';
import { createPlaceholderGenerator } from '../providers/embedded/placeholder.js';
import { createPlaceholderVideoGenerator } from '../providers/embedded/placeholder-video.js';
import { createRulePromptEnhancer } from '../providers/embedded/prompt-rules.js';
import type {
  AltTextWriter,
  BackgroundRemover,
  ImageGenerator,
  ImageRater,
  ProviderSet,
  SourceImage,
  TextReader,
  VideoGenerator,
} from '../providers/provider-types.js';
import { createAutomatic1111 } from '../providers/remote/automatic1111.js';
import { createComfyUi } from '../providers/remote/comfyui/generator.js';
import type { ComfyLog } from '../providers/remote/comfyui/outage.js';
import { createWorkflowCheck } from '../providers/remote/comfyui/workflow-check.js';
import { createOpenAiChat } from '../providers/remote/openai-chat.js';
import { createOpenAiImages } from '../providers/remote/openai-images.js';
import { createOpenAiVideo } from '../providers/remote/openai-video.js';
import { workflowsServedBy } from './comfy-workflows-served.js';

type KeyedProvider = { apiKey?: string; apiKeyEnv?: string; apiKeySecret?: string };
/** Provider keys held in the secret store, decrypted before the providers are built. */
export type SecretValues = ReadonlyMap<string, string>;

const keyOf = (provider: KeyedProvider, secrets: SecretValues) =>
  provider.apiKeySecret
    ? secrets.get(provider.apiKeySecret)
    : provider.apiKeyEnv
      ? environment.secret(provider.apiKeyEnv)
      : provider.apiKey;

/** The secret names the config's providers use: their keys, and ComfyUI header values kept in the secret store. */
export const secretNames = (config: Config): string[] =>
  Object.values(config.providers).flatMap((p) => {
    if (p.type === 'comfyui')
      return Object.values(p.headers).flatMap((value) =>
        typeof value === 'object' && 'secret' in value ? [value.secret] : [],
      );
    return 'apiKeySecret' in p && p.apiKeySecret ? [p.apiKeySecret] : [];
  });

type ComfyProvider = Extract<ProviderConfig, { type: 'comfyui' }>;
/**
 * A ComfyUI server's headers with their values resolved (a value not found is left out, and the server runs without
 * it).
 */
export function comfyHeaders(provider: ComfyProvider, secrets: SecretValues): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(provider.headers)) {
    const resolved =
      typeof value === 'string' ? value : 'secret' in value ? secrets.get(value.secret) : environment.secret(value.env);
    if (resolved !== undefined) headers[name] = resolved;
  }
  return headers;
}

/** The embedded models of the process, created once and kept across reloads. */
export interface EmbeddedRuntime {
  /** The embedded NSFW rater (created on first use). */
  nsfw: () => ImageRater & {
    predict(data: Buffer): Promise<{ predictions: NsfwPrediction[]; backend: string }>;
    warmUp(): Promise<void>;
    close(): Promise<void>;
  };
  /** The embedded background remover (created on first use). */
  background: () => BackgroundRemover & {
    warmUp(): Promise<void>;
    close(): Promise<void>;
  };
  /** The embedded alt text writer and OCR (created on first use). */
  alt: () => AltTextWriter &
    TextReader & {
      traits(image: SourceImage): Promise<ImageTraits>;
      warmUp(): Promise<void>;
      close(): Promise<void>;
    };
  /** Closes the models created (their worker threads). */
  close(): Promise<void>;
}

/**
 * The embedded models, created once per process (they load lazily, in worker threads) and
 * kept across config reloads; closed when the server stops.
 */
export function createEmbeddedRuntime(config: Pick<ConfigSource, 'current'>): EmbeddedRuntime {
  let nsfw: ReturnType<typeof createEmbeddedNsfwRater> | undefined;
  let background: ReturnType<typeof createEmbeddedBackgroundRemover> | undefined;
  let alt: ReturnType<typeof createBasicAltWriter> | undefined;
  return {
    nsfw: () => {
      nsfw ??= createEmbeddedNsfwRater({ timeoutMs: config.current().embedded.nsfw.timeoutMs });
      return nsfw;
    },
    background: () => {
      const settings = config.current().embedded.backgroundRemoval;
      background ??= createEmbeddedBackgroundRemover({
        model: settings.model,
        threads: settings.threads,
        timeoutMs: settings.timeoutMs,
      });
      return background;
    },
    alt: () => {
      alt ??= createBasicAltWriter({ ocr: config.current().embedded.altText.ocr });
      return alt;
    },
    async close() {
      await Promise.all([nsfw?.close(), background?.close(), alt?.close()]);
    },
  };
}

/** The ffmpeg that encodes videos: the configured one, else the one shipped in the npm package. */
export const ffmpegPathOf = (config: Config): string => config.video.ffmpegPath ?? bundledFfmpegPath();

/** One ComfyUI server's generators, made once per config: its image and video sides share its state. */
const comfyServers = new WeakMap<object, ReturnType<typeof createComfyUi>>();
function comfyUiFor(name: string, provider: ComfyProvider, config: Config, secrets: SecretValues, log?: ComfyLog) {
  let made = comfyServers.get(provider);
  if (!made) {
    const headers = comfyHeaders(provider, secrets);
    // Each time the server comes up, the workflows it serves are checked against its nodes (logged).
    const reached =
      log &&
      createWorkflowCheck({
        server: { name, baseUrl: provider.baseUrl, headers },
        workflows: () => workflowsServedBy(config, name),
        log,
      });
    made = createComfyUi({ name, ...provider, headers, workflowOf: (key) => config.workflows[key], log, reached });
    comfyServers.set(provider, made);
  }
  return made;
}

function videoGeneratorFor(
  name: string,
  provider: ProviderConfig,
  config: Config,
  secrets: SecretValues,
  log?: ComfyLog,
): VideoGenerator | undefined {
  if (provider.type === 'placeholder')
    return createPlaceholderVideoGenerator({ ffmpegPath: () => ffmpegPathOf(config) });
  if (provider.type === 'comfyui') return comfyUiFor(name, provider, config, secrets, log).video;
  if (provider.type === 'openai-video')
    return createOpenAiVideo({ name, ...provider, apiKey: keyOf(provider, secrets) });
  return undefined;
}

function generatorFor(
  name: string,
  provider: ProviderConfig,
  config: Config,
  secrets: SecretValues,
  log?: ComfyLog,
): ImageGenerator | undefined {
  if (provider.type === 'placeholder') return createPlaceholderGenerator();
  if (provider.type === 'openai-video') return undefined;
  if (provider.type === 'comfyui') return comfyUiFor(name, provider, config, secrets, log).image;
  if (provider.type === 'automatic1111')
    return createAutomatic1111({ name, ...provider, apiKey: keyOf(provider, secrets) });
  const origin = new URL(provider.baseUrl).origin;
  return createOpenAiImages({
    name,
    ...provider,
    apiKey: keyOf(provider, secrets),
    // An image answered by URL on the provider's own host is read directly (LocalAI serves its
    // files there); any other URL goes through the SSRF guard like a user URL.
    fetchImage: async (url, signal) =>
      new URL(url).origin === origin
        ? (await providerRequest(url, { method: 'GET', timeoutMs: provider.timeoutMs, signal })).body
        : (
            await createSafeFetcher({ ...config.fetch, privateAddressesSetting: 'fetch.allowPrivateAddresses' }).fetch(
              url,
              signal,
            )
          ).data,
  });
}

/**
 * The providers the config names: generators by provider name (each capped at its
 * concurrency); `providers.vision` for alt text and custom rating (and nsfw_sfw when its `nsfw`
 * is set); `providers.chat` for magic prompts; the embedded models for the rest.
 * `overrides` replace capabilities (tests use fakes). `log` hears what providers report on their
 * own (a ComfyUI server going down and coming back).
 */
export function buildProviderSet(
  config: Config,
  embedded: EmbeddedRuntime,
  secrets: SecretValues,
  overrides: Partial<ProviderSet> = {},
  log?: ComfyLog,
): ProviderSet {
  const generators = new Map<string, ImageGenerator>();
  const videoGenerators = new Map<string, VideoGenerator>();
  for (const [name, provider] of Object.entries(config.providers)) {
    if (name === 'vision' || name === 'chat') continue;
    const generator = generatorFor(name, provider, config, secrets, log);
    if (generator)
      generators.set(
        name,
        limitGenerator(generator, () => provider.concurrency),
      );
    const video = videoGeneratorFor(name, provider, config, secrets, log);
    if (video)
      videoGenerators.set(
        name,
        limitGenerator(video, () => provider.concurrency),
      );
  }
  const remote = (name: 'vision' | 'chat') => {
    const provider = config.providers[name];
    return provider?.type === 'openai'
      ? { provider, chat: createOpenAiChat({ name, ...provider, apiKey: keyOf(provider, secrets) }) }
      : undefined;
  };
  const vision = remote('vision');
  const chat = remote('chat');
  const set: ProviderSet = {
    generator: (name) => generators.get(name),
    videoGenerator: (name) => videoGenerators.get(name),
  };
  if (vision) {
    set.visionRater = vision.chat.rater;
    set.altText = vision.chat.altText;
    // The judge answers one review at a time per slot: capped at the vision provider's concurrency.
    const judge = limitCalls(vision.chat.judge.judge, () => vision.provider.concurrency);
    set.judge = { judge: judge.call };
    if (vision.provider.nsfw) set.nsfwRater = vision.chat.rater;
  }
  if (!set.nsfwRater && config.embedded.nsfw.enabled) set.nsfwRater = embedded.nsfw();
  if (!set.altText && config.embedded.altText.enabled) set.altText = embedded.alt();
  // Review reads text with the embedded OCR (shared with alt text), even when a vision model writes the alt text.
  if (config.embedded.altText.enabled && config.embedded.altText.ocr) set.textReader = embedded.alt();
  if (config.embedded.backgroundRemoval.enabled) set.backgroundRemover = embedded.background();
  set.promptEnhancer = chat ? chat.chat.enhancer : createRulePromptEnhancer();
  return { ...set, ...overrides };
}

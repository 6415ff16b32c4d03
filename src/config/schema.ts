import { z } from 'zod';
import { parseDuration } from '../domain/time.js';
import type { LoadedWorkflow } from './workflows.js';

const UsdString = z.string().regex(/^\d{1,10}(\.\d{1,6})?$/, 'a decimal USD amount such as "0.002"');
const Duration = z.string().refine((value) => parseDuration(value) !== null, 'a duration such as 90s, 15m, 1h or 30d');

/** A browser origin, normalized as browsers send it (lowercase host, no default port), or "*". */
const CorsOrigin = z.string().transform((value, ctx) => {
  if (value === '*') return value;
  let origin: string | undefined;
  try {
    if (/^https?:\/\/[^/?#@\s]+$/i.test(value)) origin = new URL(value).origin;
  } catch {}
  if (origin) return origin;
  ctx.addIssue({ code: 'custom', message: 'an origin such as https://app.example.com (scheme, host and optional port; no path), or "*"' });
  return z.NEVER;
});

const ModelId = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a model id (lowercase letters, digits, . _ -)');

/** A ComfyUI node input, as `"<node id>.inputs.<name>"` (checked against the workflow at load). */
const BindingPath = z.string().regex(/^[^.\s]+\.inputs\.[^.\s]+$/, 'a node input such as "6.inputs.text"');
/** Which node input of a ComfyUI workflow receives what; every binding but `prompt` is optional. */
const Bindings = z.strictObject({
  prompt: BindingPath,
  negativePrompt: BindingPath.optional(),
  seed: BindingPath.optional(),
  width: BindingPath.optional(),
  height: BindingPath.optional(),
  batchSize: BindingPath.optional(),
  /** LoadImage inputs, one per input image in request order: each receives the name of its upload. */
  images: z.array(BindingPath).max(20).optional(),
});
/** A ComfyUI workflow in API format ("Export (API)"), its path relative to the config file's folder, and its bindings. */
const WorkflowFields = {
  workflow: z.string().min(1).optional(),
  bindings: Bindings.optional(),
};

const ModelSchema = z.strictObject({
  provider: z.string().min(1).optional(),
  providers: z.array(z.string().min(1)).min(1).optional(),
  ...WorkflowFields,
  price: z.strictObject({ perImage: UsdString, perInput: UsdString, perImage4k: UsdString.optional() }),
  capabilities: z.strictObject({
    maxInputs: z.number().int().min(0).max(20),
    supports4k: z.boolean(),
    negativePrompt: z.boolean(),
    /** What `size: auto` resolves to, as WxH. Default: the 1:1 base size. */
    nativeSize: z
      .string()
      .regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1024x1024')
      .optional(),
  }),
  options: z.record(z.string(), z.unknown()).default({}),
});

/**
 * A video model: its providers (tried in order, like image models), a price per second of
 * footage (plus one per input image), and what it can make. Requests are capped by it: a
 * longer duration or a higher fps than it takes fails validation; a size larger than
 * `maxSize` is scaled down to fit.
 */
const VideoModelSchema = z.strictObject({
  provider: z.string().min(1).optional(),
  providers: z.array(z.string().min(1)).min(1).optional(),
  workflow: WorkflowFields.workflow,
  /** As image models' bindings, plus the frame rate and the number of frames (duration × fps). */
  bindings: Bindings.extend({ fps: BindingPath.optional(), frames: BindingPath.optional() }).optional(),
  price: z.strictObject({ perSecond: UsdString, perInput: UsdString.default('0') }),
  capabilities: z.strictObject({
    maxInputs: z.number().int().min(0).max(1),
    negativePrompt: z.boolean(),
    maxDurationS: z.number().int().min(1).max(10),
    maxFps: z.number().int().min(8).max(30),
    /** The largest frame, as WxH (landscape; portrait sizes are capped by its transpose). */
    maxSize: z.string().regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1280x720'),
    /** What `size: auto` resolves to, as WxH. */
    nativeSize: z.string().regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1280x720'),
  }),
  options: z.record(z.string(), z.unknown()).default({}),
});

const ProviderBase = {
  /** Requests in flight at once; past it the provider counts as busy (failover, then PROVIDERS_BUSY). */
  concurrency: z.number().int().min(1).max(64).default(2),
  timeoutMs: z.number().int().min(100).max(600_000).default(120_000),
};
/**
 * A provider's key: `apiKeySecret` names a secret in the encrypted store (`imgtask secrets set`),
 * `apiKeyEnv` an environment variable, `apiKey` holds it inline (least safe).
 */
const ProviderKey = {
  apiKeySecret: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a secret name')
    .optional(),
  apiKey: z.string().min(1).optional(),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
    .optional(),
};
const BaseUrl = z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, ''));

/**
 * The bucket of `images.storage: "s3"`: the S3 destination's settings, its secret key given as
 * provider keys are (`secretAccessKeySecret` a secret of the encrypted store, `secretAccessKeyEnv`
 * an environment variable, `secretAccessKey` inline, least safe). No keys at all: the AWS SDK's
 * default chain (AWS_* environment, shared files, instance role).
 */
const ImagesS3 = z
  .strictObject({
    bucket: z.string().min(3).max(63),
    region: z.string().min(1).max(64).default('us-east-1'),
    endpoint: z
      .url({ protocol: /^https?$/ })
      .nullable()
      .default(null),
    /** Path-style URLs (endpoint/bucket/key), as MinIO and most self-hosted stores need; null: on when an endpoint is set. */
    forcePathStyle: z.boolean().nullable().default(null),
    /** Put before every key as it is (`imgtask/` makes a folder); images go under `<prefix>images/`, videos under `<prefix>videos/`. */
    prefix: z
      .string()
      .max(512)
      .refine(
        (prefix) => !prefix.split('/').slice(0, -1).includes('') && !prefix.split('/').some((segment) => segment === '.' || segment === '..'),
        'segments between slashes must not be empty, "." or ".."',
      )
      .default(''),
    accessKeyId: z.string().min(1).max(256).nullable().default(null),
    secretAccessKeySecret: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a secret name')
      .optional(),
    secretAccessKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
      .optional(),
    secretAccessKey: z.string().min(1).max(512).optional(),
    /** Connection and idle-socket deadline of each request to the bucket. */
    timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  })
  .refine((s3) => [s3.secretAccessKeySecret, s3.secretAccessKeyEnv, s3.secretAccessKey].filter((v) => v !== undefined).length === (s3.accessKeyId === null ? 0 : 1), {
    message: 'with accessKeyId give exactly one of secretAccessKeySecret, secretAccessKeyEnv or secretAccessKey; without it, none (the AWS default chain)',
  });

const ProviderSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('placeholder'), ...ProviderBase }),
  z.strictObject({
    type: z.literal('openai'),
    /** Includes the /v1 prefix, as OpenAI clients do. */
    baseUrl: BaseUrl,
    model: z.string().min(1),
    /** Sizes the model takes; a request's size maps to the one of nearest aspect ratio. */
    sizes: z
      .array(z.string().regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1024x1024'))
      .min(1)
      .default(['1024x1024', '1536x1024', '1024x1536']),
    /** `b64_json` or `url` for models that take response_format (dall-e-*); null to not send it (gpt-image-1). */
    responseFormat: z.enum(['b64_json', 'url']).nullable().default(null),
    /** The multipart field of input images on /images/edits: `image[]` (several, gpt-image-1) or `image` (one, dall-e-2). */
    editImageField: z.enum(['image', 'image[]']).default('image[]'),
    /** Send each image's seed as `seed`: LocalAI and some other compatible servers take it; OpenAI itself refuses unknown fields, so off by default. */
    seed: z.boolean().default(false),
    /** As providers.vision: also serve the built-in nsfw_sfw scale instead of the embedded model. */
    nsfw: z.boolean().default(false),
    ...ProviderKey,
    ...ProviderBase,
  }),
  z.strictObject({
    /** An OpenAI-compatible video API: POST {baseUrl}/videos, poll GET /videos/{id}, download /videos/{id}/content. */
    type: z.literal('openai-video'),
    /** Includes the /v1 prefix, as OpenAI clients do. */
    baseUrl: BaseUrl,
    model: z.string().min(1),
    /** Frame sizes the model takes; a request's size maps to the one of nearest aspect ratio. */
    sizes: z
      .array(z.string().regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1280x720'))
      .min(1)
      .default(['1280x720', '720x1280']),
    /** Clip lengths the model takes, in seconds; a request's duration maps to the nearest one at or above it (else the longest). */
    seconds: z.array(z.number().int().min(1).max(60)).min(1).default([4, 8, 12]),
    /** How often a queued or running job is polled. */
    pollIntervalMs: z.number().int().min(100).max(60_000).default(5000),
    ...ProviderKey,
    concurrency: ProviderBase.concurrency,
    /** The whole job: create, polls and download. */
    timeoutMs: z.number().int().min(1000).max(3_600_000).default(900_000),
  }),
  z.strictObject({
    /**
     * A ComfyUI server: models served by it name a `workflow` and its `bindings`. A job is queued
     * with POST /prompt and followed over /ws (polling /history when the socket drops).
     */
    type: z.literal('comfyui'),
    baseUrl: BaseUrl,
    /**
     * Sent with every request to this server (a proxy's credentials): each value as written, or
     * `{ "secret": "<name>" }` (the encrypted secret store: `imgtask secrets set <name>`) or
     * `{ "env": "<VARIABLE>" }`, so a credential need not sit in the config file.
     */
    headers: z
      .record(
        z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'an HTTP header name'),
        z.union([
          z.string().regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'a header value: no line breaks or control characters'),
          z.strictObject({ secret: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a secret name') }),
          z.strictObject({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name') }),
        ]),
      )
      .default({}),
    /** Busy (the model's next server is tried first) while this server's queue holds this many waiting jobs, every client's (GET /queue); null: its queue length is not a reason. */
    maxQueued: z.number().int().min(1).max(10_000).nullable().default(null),
    /** Jobs sent at once; ComfyUI runs one at a time and queues the rest. */
    concurrency: ProviderBase.concurrency,
    /** A job from its queueing to its history read (uploads and the output's download have their own limits: 30 s and 120 s). */
    timeoutMs: z.number().int().min(1000).max(3_600_000).default(600_000),
    /** How often /history is polled once the WebSocket has dropped. */
    pollIntervalMs: z.number().int().min(50).max(60_000).default(1000),
  }),
  z.strictObject({
    type: z.literal('automatic1111'),
    baseUrl: BaseUrl,
    /** A checkpoint name to switch to (override_settings.sd_model_checkpoint); omit to use the loaded one. */
    model: z.string().min(1).optional(),
    steps: z.number().int().min(1).max(150).default(25),
    cfgScale: z.number().min(1).max(30).default(7),
    sampler: z.string().min(1).optional(),
    /** img2img: how far from the input image to go (0..1). */
    denoisingStrength: z.number().min(0).max(1).default(0.6),
    ...ProviderKey,
    ...ProviderBase,
  }),
]);
export type ProviderConfig = z.infer<typeof ProviderSchema>;

export const ConfigSchema = z.strictObject({
  server: z.strictObject({
    host: z.string().min(1),
    port: z.number().int().min(0).max(65535),
    bodyLimitBytes: z.number().int().min(1024),
    /**
     * Milliseconds to receive a whole request, head and body (Node's `requestTimeout`; the head
     * alone has the smaller of this and 60 s). Past it Node answers 408 and closes the
     * connection: a client that declares a body and never sends it holds nothing longer. Read
     * at start.
     * @default 60000
     */
    requestTimeout: z.number().int().min(100).max(3_600_000),
  }),
  cors: z.strictObject({
    /** Browser origins allowed cross-origin (compared as the browser sends them: scheme://host[:port]), or "*"; [] = no CORS headers. */
    origins: z.array(CorsOrigin),
  }),
  publicUrl: z.url({ protocol: /^https?$/ }).nullable(),
  store: z.strictObject({
    /** Where the state lives: the journaled files of the data dir, or a PostgreSQL database (store.postgres). */
    driver: z.enum(['file', 'postgres']),
    snapshotEveryBytes: z.number().int().min(4096),
    verifyPayloads: z.boolean(),
    /**
     * Free bytes kept in each folder the service writes to (the store's, images/, videos/): below
     * it, creates and uploads are refused with 507 STORAGE_FULL and /ready answers 503, while
     * work already accepted goes on being written into what is left. 0 = no floor.
     * @default 67108864
     */
    minFreeBytes: z
      .number()
      .int()
      .min(0)
      .default(64 * 1024 * 1024),
    postgres: z.strictObject({
      /** postgres://user:password@host:port/database (env IMGTASK_DATABASE_URL); needed when driver is "postgres". */
      url: z
        .string()
        .refine((value) => /^postgres(ql)?:\/\/[^\s]+$/.test(value), 'a PostgreSQL URL such as postgres://user:password@host:5432/imgtask')
        .nullable(),
      /** Connections this process keeps open at most. */
      poolSize: z.number().int().min(1).max(100),
    }),
  }),
  work: z.strictObject({
    defaultConcurrency: z.number().int().min(1).max(64),
    lanes: z.record(z.string(), z.number().int().min(1).max(64)),
    shutdownGraceMs: z.number().int().min(0).max(600_000),
    retryBaseMs: z.number().int().min(0).max(60_000),
    sweepIntervalMs: z.number().int().min(1000),
    /** PostgreSQL: how long a worker's claim on a task lasts unless renewed (every third of it); a dead worker's tasks are claimed again after it. */
    leaseMs: z.number().int().min(300).max(3_600_000),
  }),
  limits: z.strictObject({
    requestsPerMinutePerKey: z.number().int().min(1).nullable(),
    maxPendingTasks: z.number().int().min(1),
    /** Creates whose lane has more than this many seconds of work queued ahead (estimated from recent item times) get 429 with Retry-After; null = no bound. */
    maxQueueDelaySeconds: z.number().int().min(1).nullable(),
  }),
  auth: z.strictObject({
    accessTokenTtl: Duration,
    externalIssuer: z
      .strictObject({
        issuer: z.string().min(1),
        jwksUrl: z.url({ protocol: /^https?$/ }),
        audience: z.string().min(1).optional(),
        accountClaim: z.string().min(1).default('sub'),
      })
      .nullable(),
  }),
  fetch: z.strictObject({
    allowPrivateAddresses: z.boolean(),
    maxBytes: z.number().int().min(1024),
    timeoutMs: z.number().int().min(100),
    maxRedirects: z.number().int().min(0).max(20),
    maxPixels: z.number().int().min(1024),
  }),
  images: z
    .strictObject({
      cacheMaxAgeSeconds: z.number().int().min(0),
      /** Where images and videos live: the data dir ("local") or an S3-compatible bucket ("s3", images.s3), shared by processes on several machines. Read at start. */
      storage: z.enum(['local', 's3']).default('local'),
      s3: ImagesS3.nullable().default(null),
    })
    .refine((images) => images.storage !== 's3' || images.s3 !== null, { message: 'storage "s3" needs images.s3 ({ bucket, … })', path: ['s3'] }),
  webhooks: z.strictObject({
    retryScheduleMs: z.array(z.number().int().min(0)).min(1).max(20),
    timeoutMs: z.number().int().min(100).max(120_000),
    disableAfterMs: z.number().int().min(0),
    concurrency: z.number().int().min(1).max(256),
    allowPrivateAddresses: z.boolean(),
  }),
  /** Budget alerts: the percentages of an account's monthly budget and of a key's spending limit that send `billing.threshold_reached` once per period. */
  billing: z
    .strictObject({
      alerts: z.strictObject({ thresholds: z.array(z.number().int().min(1).max(1000)).max(20).default([50, 80, 100]) }).default({ thresholds: [50, 80, 100] }),
    })
    .default({ alerts: { thresholds: [50, 80, 100] } }),
  sync: z.strictObject({ timeoutMs: z.number().int().min(0).max(600_000) }),
  /** Live status streams (GET /tasks/{id}/events): how often an idle stream sends a `: ping` comment, so proxies keep it open. */
  taskEvents: z.strictObject({ heartbeatMs: z.number().int().min(10).max(600_000).default(15_000) }).default({ heartbeatMs: 15_000 }),
  defaultModel: z.string().min(1),
  models: z.record(ModelId, ModelSchema),
  /** The video model `model: auto` resolves to. */
  defaultVideoModel: z.string().min(1),
  videoModels: z.record(ModelId, VideoModelSchema),
  /** image.review: the price per image, and the thresholds of the embedded technical checks. */
  review: z.strictObject({
    price: UsdString,
    /** The shorter side, in pixels, below which "resolution" fails. */
    minShortSide: z.number().int().min(1).max(100_000),
    /** Variance of the Laplacian (grey levels², on the image scaled to 512 px on its longer side) below which "sharp focus" fails. */
    minSharpness: z.number().min(0),
    /** Share of pixels at pure black or pure white above which "exposure" fails (clipped shadows or highlights). */
    maxClipped: z.number().min(0).max(1),
    /** Mean brightness (0–255) outside which "exposure" fails: too dark below the first, too bright above the second. */
    brightness: z.tuple([z.number().min(0).max(255), z.number().min(0).max(255)]),
  }),
  /** Video encoding: the ffmpeg binary (null = the one shipped in @ffmpeg-installer/ffmpeg). */
  video: z.strictObject({ ffmpegPath: z.string().min(1).nullable() }),
  providers: z.record(z.string().min(1), ProviderSchema),
  embedded: z.strictObject({
    /** Load the enabled models in the background at start, so the first request does not wait for a load. */
    preload: z.boolean().default(true),
    nsfw: z.strictObject({ enabled: z.boolean(), timeoutMs: z.number().int().min(1000) }),
    backgroundRemoval: z.strictObject({ enabled: z.boolean(), model: z.enum(['small', 'medium']), threads: z.number().int().min(1).max(16), timeoutMs: z.number().int().min(1000) }),
    altText: z.strictObject({ enabled: z.boolean(), ocr: z.boolean() }),
  }),
  /** The service log (pino): its level (a reload applies it) and its form (read at start). */
  log: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      /** auto: pretty lines when stdout is a terminal, JSON lines otherwise. */
      format: z.enum(['auto', 'json', 'pretty']).default('auto'),
    })
    .default({ level: 'info', format: 'auto' }),
  /** GET /metrics: on or off, and the bearer token it asks for (null: none). */
  metrics: z
    .strictObject({
      enabled: z.boolean().default(true),
      token: z.string().min(16, 'at least 16 characters').nullable().default(null),
    })
    .default({ enabled: true, token: null }),
  destinations: z.strictObject({
    local: z.strictObject({ allowedRoots: z.array(z.string().startsWith('/', 'an absolute path')) }),
    allowPrivateAddresses: z.boolean(),
    timeoutMs: z.number().int().min(100).max(600_000),
  }),
  /** The web console at /console: on or off (a reload applies it), and how long a session lasts. */
  console: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** A session's lifetime after sign-in; one opened with an access token never outlives the token. */
      sessionTtl: Duration.default('12h'),
    })
    .default({ enabled: true, sessionTtl: '12h' }),
});

/** The config as loaded: the settings, and the ComfyUI workflows models name, read and checked (keyed `models.<id>` / `videoModels.<id>`). */
export type Config = z.infer<typeof ConfigSchema> & { workflows: Readonly<Record<string, LoadedWorkflow>> };
export type ModelConfig = z.infer<typeof ModelSchema>;
export type VideoModelConfig = z.infer<typeof VideoModelSchema>;

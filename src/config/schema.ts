import { z } from 'zod';
import { parseProxyRange } from '../domain/client-address.js';
import { parameterDeclarationProblems, STRING_PARAMETER_MAX } from '../domain/model-parameters.js';
import { RETENTION_DEFAULTS, type RetentionKind, retentionProblem } from '../domain/retention.js';
import { parseDuration } from '../domain/time.js';
import type { LoadedWorkflow } from './workflows.js';

const UsdString = z.string().regex(/^\d{1,10}(\.\d{1,6})?$/, 'a decimal USD amount such as "0.002"');
const Duration = z.string().refine((value) => parseDuration(value) !== null, 'a duration such as 90s, 15m, 1h or 30d');

/** A retention setting of `kind`: a duration at or above the kind's floor, or "off". */
const Retention = (kind: RetentionKind, what: string) =>
  z
    .string()
    .superRefine((value, ctx) => {
      const problem = retentionProblem(kind, value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .default(RETENTION_DEFAULTS[kind])
    .describe(what);

/** A browser origin, normalized as browsers send it (lowercase host, no default port), or "*". */
const CorsOrigin = z.string().transform((value, ctx) => {
  if (value === '*') return value;
  let origin: string | undefined;
  try {
    if (/^https?:\/\/[^/?#@\s]+$/i.test(value)) origin = new URL(value).origin;
  } catch {}
  if (origin) return origin;
  ctx.addIssue({
    code: 'custom',
    message: 'an origin such as https://app.example.com (scheme, host and optional port; no path), or "*"',
  });
  return z.NEVER;
});

const ModelId = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a model id (lowercase letters, digits, . _ -)');

/** A ComfyUI node input, as `"<node id>.inputs.<name>"` (checked against the workflow at load). */
const BindingPath = z.string().regex(/^[^.\s]+\.inputs\.[^.\s]+$/, 'a node input such as "6.inputs.text"');
/**
 * Which node input of a ComfyUI workflow receives what; every binding but `prompt` is optional,
 * and an unbound input (or a value the request leaves out) keeps the workflow's own value.
 */
const Bindings = z.strictObject({
  prompt: BindingPath.describe(
    'The node input, as "<node id>.inputs.<name>", that receives the prompt (of an image, the magic prompt\'s when one is asked for); the one binding required.',
  ),
  negativePrompt: BindingPath.optional().describe(
    'The node input that receives the negative prompt; unbound, or an item without one: the workflow keeps its own text.',
  ),
  seed: BindingPath.optional().describe(
    "The node input that receives the item's seed: the request's seed (or a random one) plus the item's index, modulo 2^32.",
  ),
  width: BindingPath.optional().describe(
    'The node input that receives the width, in pixels, of the size the item is made at.',
  ),
  height: BindingPath.optional().describe(
    'The node input that receives the height, in pixels, of the size the item is made at.',
  ),
  batchSize: BindingPath.optional().describe('The node input that receives 1: one image per item.'),
  images: z
    .array(BindingPath)
    .max(20)
    .optional()
    .describe(
      'LoadImage inputs, one per input image in request order: each receives the name ComfyUI gave its upload (at most 20). capabilities.maxInputs may not exceed their number.',
    ),
});
/** A ComfyUI workflow in API format ("Export (API)"), its path relative to the config file's folder, and its bindings. */
const WorkflowFields = {
  workflow: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A ComfyUI workflow in API format ("Export (API)"): its file, relative to the config file\'s folder (the working folder without one). Required, with bindings, when a provider of the model is of type comfyui, refused otherwise; read and checked against the bindings at load.',
    ),
  bindings: Bindings.optional(),
  parameters: z
    .record(
      z
        .string()
        .regex(
          /^[A-Za-z][A-Za-z0-9_]{0,39}$/,
          'a parameter name (a letter, then letters, digits or _; up to 40 characters)',
        ),
      z
        .strictObject({
          binding: BindingPath.describe(
            'The node input, as "<node id>.inputs.<name>", that receives the value (never shown to clients).',
          ),
          type: z
            .enum(['integer', 'number', 'string', 'boolean', 'enum'])
            .describe('What a request may send: an integer, a number, a string, true or false, or one of `values`.'),
          min: z.number().optional().describe('integer and number: the smallest value.'),
          max: z.number().optional().describe('integer and number: the largest value.'),
          values: z
            .array(z.string().min(1).max(STRING_PARAMETER_MAX))
            .max(500)
            .optional()
            .describe('enum: the values a request may choose (such as sampler, checkpoint or LoRA names).'),
          maxLength: z
            .number()
            .int()
            .min(1)
            .max(STRING_PARAMETER_MAX)
            .optional()
            .describe(`string: the longest value, in characters. Default (and most): ${STRING_PARAMETER_MAX}.`),
          default: z
            .union([z.string(), z.number(), z.boolean()])
            .describe(
              'The value bound when a request leaves the parameter out; it must be a value the parameter takes.',
            ),
          description: z.string().max(500).optional().describe('Shown to clients by GET /models (GET /video/models).'),
          price: z
            .strictObject({ perUnit: UsdString.describe('USD per unit of the value.') })
            .optional()
            .describe(
              "integer and number: value × perUnit USD is added to each image's price (to each second's of a video), with the request's value or the default.",
            ),
        })
        .superRefine((parameter, ctx) => {
          for (const message of parameterDeclarationProblems(parameter)) ctx.addIssue({ code: 'custom', message });
        }),
    )
    .optional()
    .describe(
      'ComfyUI models: values a request may set in `parameters: { … }`, by name, each bound into one node input (checked against the workflow at load; a name or node input of the built-in bindings is refused). GET /models lists them without their bindings. Each: { binding, type: integer | number | string | boolean | enum, min?, max?, values? (enum), maxLength? (string, at most 2000), default, description?, price?: { perUnit } }: docs/comfyui.md#parameters-per-request.',
    ),
  allowRawWorkflows: z
    .boolean()
    .default(false)
    .describe(
      "ComfyUI models: whether a request from a key with the scope workflow:raw may post a whole API-format graph in `workflow` (run instead of the model's own). Custom nodes can read files and run code on the server: see docs/comfyui.md#raw-graphs-trusted-keys.",
    ),
};

/** A model's providers: one name, or several tried in order. */
const ModelProviders = {
  provider: z
    .string()
    .min(1)
    .optional()
    .describe("The provider (a name in providers) that makes the model's output; or give providers."),
  providers: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe(
      "Providers (names in providers) that make the model's output, tried in order: each attempt starts at the next one, and a busy one is passed over (failover). Used instead of provider when both are given.",
    ),
};
/** What the model's provider gets with every item, as it is. */
const ModelOptions = (made: string, readers: string) =>
  z
    .record(z.string(), z.unknown().describe('One option: any JSON value, passed on as it is.'))
    .default({})
    .describe(`Options passed as they are to the model's provider with every ${made}; ${readers}`);

const ModelSchema = z.strictObject({
  ...ModelProviders,
  ...WorkflowFields,
  outputs: z
    .array(z.string().min(1).max(64))
    .min(1)
    .max(16)
    .optional()
    .describe(
      "ComfyUI models: the output nodes (ids) whose files are the task's items, in this order: each run of the workflow makes one item per node, so a request's count × their number items. Absent: every image save node (SaveImage, SaveAnimatedWEBP, …; never PreviewImage). Each must be a node of the workflow (checked at load).",
    ),
  price: z.strictObject({
    perImage: UsdString.describe('USD per image made, as a decimal string ("0.002"; up to 6 decimals).'),
    perInput: UsdString.describe('USD per input image, added to the price of each image made.'),
    perImage4k: UsdString.optional().describe(
      'USD per image at 4K scale (the _4k sizes), instead of perImage, when supports4k is true; absent: perImage.',
    ),
  }),
  capabilities: z.strictObject({
    maxInputs: z
      .number()
      .int()
      .min(0)
      .max(20)
      .describe(
        'The most input images a request may send (0..20); more fail validation (VALIDATION_ERROR). Served by ComfyUI: at most the number of bindings.images.',
      ),
    supports4k: z
      .boolean()
      .describe('Whether the model makes 4K output; false: a request at 4K scale fails with CAPABILITY_NOT_SUPPORTED.'),
    negativePrompt: z
      .boolean()
      .describe(
        'Whether requests may send a negative_prompt; false: one that does fails validation (VALIDATION_ERROR).',
      ),
    nativeSize: z
      .string()
      .regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1024x1024')
      .optional()
      .describe('What `size: auto` resolves to, as WxH. Absent: the 1:1 base size.'),
  }),
  options: ModelOptions(
    'image',
    'of the built-in providers only the placeholder reads one: `fail: { code, every }` makes every Nth image fail with that code, to exercise item failures.',
  ),
});

/**
 * A video model: its providers (tried in order, like image models), a price per second of
 * footage (plus one per input image), and what it can make. Requests are capped by it: a
 * longer duration or a higher fps than it takes fails validation; a size larger than
 * `maxSize` is scaled down to fit.
 */
const VideoModelSchema = z.strictObject({
  ...ModelProviders,
  workflow: WorkflowFields.workflow,
  parameters: WorkflowFields.parameters,
  allowRawWorkflows: WorkflowFields.allowRawWorkflows,
  /** As image models' bindings, plus the frame rate and the number of frames (duration × fps). */
  bindings: Bindings.extend({
    // A video item binds no batch size: the workflow keeps its own.
    batchSize: Bindings.shape.batchSize.describe(
      'Accepted, but a video job binds no value to it: the workflow keeps its own.',
    ),
    images: Bindings.shape.images.describe(
      'LoadImage inputs: the first receives the name ComfyUI gave the upload of the input image (the first frame). capabilities.maxInputs may not exceed their number.',
    ),
    fps: BindingPath.optional().describe("The node input that receives the frame rate (the request's fps)."),
    frames: BindingPath.optional().describe(
      'The node input that receives the number of frames: duration_s × fps, rounded, at least 1.',
    ),
  }).optional(),
  price: z.strictObject({
    perSecond: UsdString.describe(
      'USD per second of footage, as a decimal string; a video costs perSecond × duration_s + perInput × inputs.',
    ),
    perInput: UsdString.default('0').describe(
      'USD per input image (the first frame), added to the price of each video.',
    ),
  }),
  capabilities: z.strictObject({
    maxInputs: z
      .number()
      .int()
      .min(0)
      .max(1)
      .describe('Input images a request may send: 0, or 1 (the first frame); more fail validation (VALIDATION_ERROR).'),
    negativePrompt: z
      .boolean()
      .describe(
        'Whether requests may send a negative_prompt; false: one that does fails validation (VALIDATION_ERROR).',
      ),
    maxDurationS: z
      .number()
      .int()
      .min(1)
      .max(10)
      .describe('The longest clip, in seconds (1..10); a longer duration_s fails validation.'),
    maxFps: z.number().int().min(8).max(30).describe('The highest frame rate (8..30); a higher fps fails validation.'),
    maxSize: z
      .string()
      .regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1280x720')
      .describe(
        'The largest frame, as WxH (landscape; portrait sizes are capped by its transpose): a larger requested size is scaled down to fit, keeping its ratio.',
      ),
    nativeSize: z
      .string()
      .regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1280x720')
      .describe('What `size: auto` resolves to, as WxH.'),
  }),
  options: ModelOptions('video', 'none of the built-in video providers reads one.'),
});

const ProviderBase = {
  concurrency: z
    .number()
    .int()
    .min(1)
    .max(64)
    .default(2)
    .describe(
      "Requests in flight at once (1..64); past it the provider counts as busy (failover, then PROVIDERS_BUSY). A model's lane runs as many at once as its providers' concurrency summed, unless work.lanes sets its own.",
    ),
  timeoutMs: z
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(120_000)
    .describe('Milliseconds per request to the provider; no answer within it fails the attempt with TIMEOUT.'),
};
/**
 * A provider's key: `apiKeySecret` names a secret in the encrypted store (`imgtask secrets set`),
 * `apiKeyEnv` an environment variable, `apiKey` holds it inline (least safe).
 */
const ProviderKey = {
  apiKeySecret: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a secret name')
    .optional()
    .describe(
      'The key: the name of a secret in the encrypted store (`imgtask secrets set <name>`); one not set is logged and the provider runs without a key. Of apiKeySecret, apiKeyEnv and apiKey, the first given is used.',
    ),
  apiKey: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The key, inline in the config file (least safe). However given, the key is sent as a Bearer token (automatic1111: as Basic credentials, user:pass); none: no Authorization header.',
    ),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
    .optional()
    .describe('The key: the name of an environment variable that holds it.'),
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
    bucket: z.string().min(3).max(63).describe("The bucket's name (3 to 63 characters)."),
    region: z
      .string()
      .min(1)
      .max(64)
      .default('us-east-1')
      .describe("The bucket's region, as the S3 client signs for it."),
    endpoint: z
      .url({ protocol: /^https?$/ })
      .nullable()
      .default(null)
      .describe(
        "The http(s) URL of an S3-compatible store (MinIO, R2, …); null: AWS S3. The operator's setting, like a provider's baseUrl: reached directly, private addresses included.",
      ),
    forcePathStyle: z
      .boolean()
      .nullable()
      .default(null)
      .describe(
        'Path-style URLs (endpoint/bucket/key), as MinIO and most self-hosted stores need; null: on when an endpoint is set.',
      ),
    prefix: z
      .string()
      .max(512)
      .refine(
        (prefix) =>
          !prefix.split('/').slice(0, -1).includes('') &&
          !prefix.split('/').some((segment) => segment === '.' || segment === '..'),
        'segments between slashes must not be empty, "." or ".."',
      )
      .default('')
      .describe(
        'Put before every key as it is (`imgtask/` makes a folder); images go under `<prefix>images/`, videos under `<prefix>videos/`, sharded as on disk.',
      ),
    accessKeyId: z
      .string()
      .min(1)
      .max(256)
      .nullable()
      .default(null)
      .describe(
        "The access key id; with it, exactly one of secretAccessKeySecret, secretAccessKeyEnv or secretAccessKey. null, with none of them: the AWS SDK's default chain (AWS_* environment, shared files, instance role).",
      ),
    secretAccessKeySecret: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a secret name')
      .optional()
      .describe(
        'The secret access key: the name of a secret in the encrypted store (`imgtask secrets set <name>`); one not set stops the start with a config error.',
      ),
    secretAccessKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
      .optional()
      .describe(
        'The secret access key: the name of an environment variable that holds it; one not set stops the start with a config error.',
      ),
    secretAccessKey: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe('The secret access key, inline in the config file (least safe).'),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(600_000)
      .default(30_000)
      .describe('Milliseconds: the connection and idle-socket deadline of each request to the bucket.'),
  })
  .refine(
    (s3) =>
      [s3.secretAccessKeySecret, s3.secretAccessKeyEnv, s3.secretAccessKey].filter((v) => v !== undefined).length ===
      (s3.accessKeyId === null ? 0 : 1),
    {
      message:
        'with accessKeyId give exactly one of secretAccessKeySecret, secretAccessKeyEnv or secretAccessKey; without it, none (the AWS default chain)',
    },
  );

const ProviderSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z
      .literal('placeholder')
      .describe(
        'embedded and offline, deterministic images and videos drawn from the prompt, for development and tests.',
      ),
    ...ProviderBase,
    timeoutMs: ProviderBase.timeoutMs.describe('Accepted, but not used: the placeholder makes its output in-process.'),
  }),
  z.strictObject({
    type: z
      .literal('openai')
      .describe(
        'an OpenAI-compatible images API (POST {baseUrl}/images/generations, or /images/edits with input images); named vision or chat, an OpenAI-compatible chat API (POST {baseUrl}/chat/completions).',
      ),
    baseUrl: BaseUrl.describe(
      "The API's base URL, /v1 prefix included, as OpenAI clients take it (https://api.openai.com/v1).",
    ),
    model: z
      .string()
      .min(1)
      .describe(
        'The model name sent with every request (gpt-image-1, dall-e-3, …; for vision or chat, a chat model such as gpt-4o-mini).',
      ),
    sizes: z
      .array(z.string().regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1024x1024'))
      .min(1)
      .default(['1024x1024', '1536x1024', '1024x1536'])
      .describe("Sizes the model takes, as WxH; a request's size maps to the one of nearest aspect ratio."),
    responseFormat: z
      .enum(['b64_json', 'url'])
      .nullable()
      .default(null)
      .describe(
        '`b64_json` or `url` for models that take response_format (dall-e-*); null to not send it (gpt-image-1).',
      ),
    editImageField: z
      .enum(['image', 'image[]'])
      .default('image[]')
      .describe(
        'The multipart field of input images on /images/edits: `image[]` (several, gpt-image-1) or `image` (the first input only, dall-e-2).',
      ),
    seed: z
      .boolean()
      .default(false)
      .describe(
        "Send each image's seed as `seed`: LocalAI and some other compatible servers take it; OpenAI itself refuses unknown fields, so off by default.",
      ),
    nsfw: z
      .boolean()
      .default(false)
      .describe(
        'As providers.vision: also serve the built-in nsfw_sfw scale instead of the embedded model; ignored under any other name.',
      ),
    ...ProviderKey,
    ...ProviderBase,
  }),
  z.strictObject({
    type: z
      .literal('openai-video')
      .describe(
        'an OpenAI-compatible video API (POST {baseUrl}/videos, then polls of GET /videos/{id} and a download of /videos/{id}/content), for video models only.',
      ),
    baseUrl: BaseUrl.describe(
      "The API's base URL, /v1 prefix included, as OpenAI clients take it (https://api.openai.com/v1).",
    ),
    model: z.string().min(1).describe('The model name sent with every job (sora-2, …).'),
    sizes: z
      .array(z.string().regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1280x720'))
      .min(1)
      .default(['1280x720', '720x1280'])
      .describe("Frame sizes the model takes, as WxH; a request's size maps to the one of nearest aspect ratio."),
    seconds: z
      .array(z.number().int().min(1).max(60))
      .min(1)
      .default([4, 8, 12])
      .describe(
        "Clip lengths the model takes, in seconds; a request's duration maps to the nearest one at or above it (else the longest).",
      ),
    pollIntervalMs: z
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(5000)
      .describe('Milliseconds between polls of a queued or running job.'),
    ...ProviderKey,
    concurrency: ProviderBase.concurrency,
    timeoutMs: z
      .number()
      .int()
      .min(1000)
      .max(3_600_000)
      .default(900_000)
      .describe(
        'Milliseconds for the whole job: create, polls and download; past it the attempt fails with TIMEOUT and the job is deleted (best effort).',
      ),
  }),
  z.strictObject({
    type: z
      .literal('comfyui')
      .describe(
        'a ComfyUI server, for images and videos; models served by it name a `workflow` and its `bindings`. A job is queued with POST /prompt and followed over /ws (polling /history when the socket drops).',
      ),
    baseUrl: BaseUrl.describe("The server's base URL (http://gpu-1:8188)."),
    headers: z
      .record(
        z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'an HTTP header name'),
        z
          .union([
            z.string().regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'a header value: no line breaks or control characters'),
            z.strictObject({ secret: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a secret name') }),
            z.strictObject({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name') }),
          ])
          .describe(
            'One header\'s value: the text as written, `{ "secret": "<name>" }` (a secret of the encrypted store) or `{ "env": "<VARIABLE>" }`; a secret or variable not set leaves the header out.',
          ),
      )
      .default({})
      .describe(
        'Headers sent with every request to this server, the WebSocket included (a proxy\'s credentials): each value as written, or `{ "secret": "<name>" }` (the encrypted secret store: `imgtask secrets set <name>`) or `{ "env": "<VARIABLE>" }`, so a credential need not sit in the config file.',
      ),
    maxQueued: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .nullable()
      .default(null)
      .describe(
        "Busy (the model's next server is tried first) while this server's queue holds this many waiting jobs, every client's (GET /queue, read in the background at most every 2 s); null: its queue length is not a reason.",
      ),
    concurrency: ProviderBase.concurrency.describe(
      'Jobs sent at once; ComfyUI runs one at a time and queues the rest. Past it the server counts as busy (failover, then PROVIDERS_BUSY); a server that is down is not busy: it is waited for (timeoutMs).',
    ),
    timeoutMs: z
      .number()
      .int()
      .min(1000)
      .max(3_600_000)
      .default(600_000)
      .describe(
        "Milliseconds for a job from its queueing to its history read (uploads and the output's download have their own limits: 30 s and 120 s); past it TIMEOUT. Also the longest an item waits for this server while it is down or restarting (when no other server of the model is up); past that it fails PROVIDER_ERROR naming the cause.",
      ),
    pollIntervalMs: z
      .number()
      .int()
      .min(50)
      .max(60_000)
      .default(1000)
      .describe('Milliseconds between polls of /history once the WebSocket has dropped.'),
  }),
  z.strictObject({
    type: z
      .literal('automatic1111')
      .describe(
        'the Stable Diffusion web UI, for images (POST /sdapi/v1/txt2img, or /sdapi/v1/img2img with the first input image; progress read from GET /sdapi/v1/progress meanwhile).',
      ),
    baseUrl: BaseUrl.describe("The web UI's base URL (http://127.0.0.1:7860)."),
    model: z
      .string()
      .min(1)
      .optional()
      .describe('A checkpoint name to switch to (override_settings.sd_model_checkpoint); omit to use the loaded one.'),
    steps: z.number().int().min(1).max(150).default(25).describe('Sampling steps of every image (steps, 1..150).'),
    cfgScale: z.number().min(1).max(30).default(7).describe('The CFG scale of every image (cfg_scale, 1..30).'),
    sampler: z
      .string()
      .min(1)
      .optional()
      .describe("A sampler name (sampler_name, e.g. DPM++ 2M); omit to use the web UI's default."),
    denoisingStrength: z
      .number()
      .min(0)
      .max(1)
      .default(0.6)
      .describe(
        'img2img: how far from the input image to go (denoising_strength, 0..1); sent only with an input image.',
      ),
    ...ProviderKey,
    ...ProviderBase,
  }),
]);
export type ProviderConfig = z.infer<typeof ProviderSchema>;

/**
 * The config. A `.describe()` text documents a key in docs/reference/configuration.md (npm run
 * docs) where the `$comment` texts of config/default.json do not; it never changes parsing.
 */
/**
 * Where a PEM (certificate chain, private key, trust anchors) is read from, as provider keys are
 * given: a secret of the encrypted store, an environment variable, or a file.
 */
const PemSource = z
  .union([
    z.strictObject({
      secret: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a secret name')
        .describe('The name of a secret in the encrypted store (`imgtask secrets set <name>`) that holds the PEM.'),
    }),
    z.strictObject({
      env: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
        .describe('The name of an environment variable that holds the PEM.'),
    }),
    z.strictObject({
      file: z
        .string()
        .min(1)
        .describe("A PEM file's path, relative to the config file's folder (the working folder without one)."),
    }),
  ])
  .describe(
    'A PEM given as `{ "secret": "<name>" }` (the encrypted secret store), `{ "env": "<VARIABLE>" }` or `{ "file": "<path>" }` (relative to the config file\'s folder); one not set or not readable stops the start with a config error.',
  );
export type PemSource = z.infer<typeof PemSource>;

/** provenance: C2PA Content Credentials on every stored output (docs/provenance.md). */
const ProvenanceSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Sign every stored image and video with C2PA Content Credentials; false: outputs are stored unsigned (their items say `provenance: unsigned`).',
      ),
    certificate: PemSource.optional().describe(
      "The signing certificate chain (PEM: the leaf first, then its intermediates), from a CA that C2PA verifiers trust; with privateKey. Without it, the first start makes a local CA and certificate under the data dir's keys/ (verifiers show them as untrusted).",
    ),
    privateKey: PemSource.optional().describe(
      "The certificate's private key (PKCS#8 PEM, EC P-256/P-384, RSA-PSS or Ed25519); with certificate.",
    ),
    timestampUrl: z
      .string()
      .url()
      .regex(/^https?:\/\//i, 'an http(s) URL')
      .optional()
      .describe(
        'An RFC 3161 timestamp authority (http or https URL) whose timestamp each signature carries, so it stays valid after the certificate expires; none: no timestamp.',
      ),
    includePrompt: z
      .boolean()
      .default(false)
      .describe(
        "Put the request's prompt in the manifest's imgtask assertion; false (the default): the prompt stays out of the credentials.",
      ),
    trustAnchors: PemSource.optional().describe(
      'Extra CA certificates (PEM, one or more) that reading credentials (POST /image/verify, imgtask verify) trusts, beside the local CA: a credential signed under one reads as Trusted.',
    ),
  })
  .refine((p) => (p.certificate === undefined) === (p.privateKey === undefined), {
    message: 'give certificate and privateKey together, or neither (a local certificate)',
    path: ['privateKey'],
  });
export type ProvenanceConfig = z.infer<typeof ProvenanceSchema>;

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
    trustedProxies: z
      .array(
        z.string().refine((text) => parseProxyRange(text) !== null, {
          message: 'expected an IP address or a CIDR range, such as 127.0.0.1 or 10.0.0.0/8',
        }),
      )
      .max(100)
      .default([]),
  }),
  cors: z.strictObject({
    /** Browser origins allowed cross-origin (compared as the browser sends them: scheme://host[:port]), or "*"; [] = no CORS headers. */
    origins: z.array(CorsOrigin),
  }),
  publicUrl: z.url({ protocol: /^https?$/ }).nullable(),
  store: z.strictObject({
    /** Where the state lives: the journaled files of the data dir, or a PostgreSQL database (store.postgres). */
    driver: z.enum(['file', 'postgres']),
    snapshotEveryBytes: z
      .number()
      .int()
      .min(4096)
      .describe(
        'File store: once the journal reaches this many bytes, the state is written to snapshot.json and the journal is cut (at least 4096).',
      ),
    verifyPayloads: z
      .boolean()
      .describe(
        'File store: check that every journaled change survives JSON unchanged before applying it (live state is built from the change itself, replay from its JSON); one that does not is refused with an error. A development aid the test suite turns on; slower.',
      ),
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
        .refine(
          (value) => /^postgres(ql)?:\/\/[^\s]+$/.test(value),
          'a PostgreSQL URL such as postgres://user:password@host:5432/imgtask',
        )
        .nullable(),
      /** Connections this process keeps open at most. */
      poolSize: z.number().int().min(1).max(100),
    }),
  }),
  work: z.strictObject({
    defaultConcurrency: z.number().int().min(1).max(64),
    lanes: z.record(
      z.string(),
      z
        .number()
        .int()
        .min(1)
        .max(64)
        .describe(
          "Jobs at once in this lane (1..64), instead of its providers' concurrency summed or defaultConcurrency; a reload applies it to the lane at once.",
        ),
    ),
    shutdownGraceMs: z.number().int().min(0).max(600_000),
    retryBaseMs: z.number().int().min(0).max(60_000),
    sweepIntervalMs: z.number().int().min(1000),
    leaseMs: z
      .number()
      .int()
      .min(300)
      .max(3_600_000)
      .describe(
        "PostgreSQL: milliseconds a worker's claim on a task lasts unless renewed (every third of it); a dead worker's tasks are claimed again after it.",
      ),
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
        issuer: z.string().min(1).describe('The issuer (`iss` claim) an external token must name, exactly.'),
        jwksUrl: z
          .url({ protocol: /^https?$/ })
          .describe(
            "The http(s) URL of the issuer's signing keys (a JWKS), fetched and cached while the URL stays the same.",
          ),
        audience: z
          .string()
          .min(1)
          .optional()
          .describe('The audience (`aud` claim) an external token must name; absent: the audience is not checked.'),
        accountClaim: z
          .string()
          .min(1)
          .default('sub')
          .describe(
            'The claim holding the account id or name; a token without it (or with it empty) is refused with 401 UNAUTHORIZED.',
          ),
      })
      .nullable(),
  }),
  fetch: z.strictObject({
    allowPrivateAddresses: z.boolean(),
    /** Cloud metadata addresses stay refused whatever allowPrivateAddresses says; this alone opens them (docs/security.md#cloud-metadata-addresses). */
    allowMetadataAddresses: z.boolean().default(false),
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
    .refine((images) => images.storage !== 's3' || images.s3 !== null, {
      message: 'storage "s3" needs images.s3 ({ bucket, … })',
      path: ['s3'],
    }),
  webhooks: z.strictObject({
    retryScheduleMs: z.array(z.number().int().min(0)).min(1).max(20),
    timeoutMs: z.number().int().min(100).max(120_000),
    disableAfterMs: z.number().int().min(0),
    concurrency: z.number().int().min(1).max(256),
    perAccountConcurrency: z
      .number()
      .int()
      .min(1)
      .max(256)
      .describe(
        "Deliveries in flight at most for one account (capped by concurrency): accounts take turns for the dispatcher's slots, and one whose receivers are slow cannot hold them all.",
      ),
    perEndpointConcurrency: z
      .number()
      .int()
      .min(1)
      .max(256)
      .describe('Deliveries in flight at most to one endpoint (one URL).'),
    endpointCooldownMaxMs: z
      .number()
      .int()
      .min(1000)
      .max(86_400_000)
      .describe(
        'An endpoint that gives no answer (a timeout, a refused or unreachable address) cools down: nothing more is sent to it for 1 s, doubling with each such failure in a row up to this many ms; then one delivery at a time tries it until one gets an answer. The deliveries keep their place and retry schedule meanwhile.',
      ),
    allowPrivateAddresses: z.boolean(),
  }),
  /** Budget alerts: the percentages of an account's monthly budget and of a key's spending limit that send `billing.threshold_reached` once per period. */
  billing: z
    .strictObject({
      alerts: z
        .strictObject({ thresholds: z.array(z.number().int().min(1).max(1000)).max(20).default([50, 80, 100]) })
        .default({ thresholds: [50, 80, 100] }),
    })
    .default({ alerts: { thresholds: [50, 80, 100] } }),
  sync: z.strictObject({ timeoutMs: z.number().int().min(0).max(600_000) }),
  /** Live status streams (GET /tasks/{id}/events): how often an idle stream sends a `: ping` comment, so proxies keep it open. */
  taskEvents: z
    .strictObject({ heartbeatMs: z.number().int().min(10).max(600_000).default(15_000) })
    .default({ heartbeatMs: 15_000 }),
  defaultModel: z
    .string()
    .min(1)
    .describe('The image model `model: auto` resolves to: an id of models (checked at load).'),
  models: z
    .record(ModelId, ModelSchema)
    .describe(
      'Image models by id (lowercase letters, digits, . _ -; up to 64 characters): { provider | providers, workflow?, bindings?, price, capabilities, options }. GET /models lists them; a request names one in `model`.',
    ),
  /** The video model `model: auto` resolves to. */
  defaultVideoModel: z.string().min(1),
  videoModels: z.record(ModelId, VideoModelSchema),
  /** image.review: the price per image, and the thresholds of the embedded technical checks. */
  review: z.strictObject({
    price: UsdString,
    minShortSide: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .describe('The shorter side, in pixels, below which "resolution" fails.'),
    minSharpness: z
      .number()
      .min(0)
      .describe(
        'Variance of the Laplacian (grey levels², on the image scaled to 512 px on its longer side) below which "sharp focus" fails.',
      ),
    maxClipped: z
      .number()
      .min(0)
      .max(1)
      .describe(
        'Share of pixels at pure black or pure white (0..1) above which "exposure" fails (clipped shadows or highlights).',
      ),
    brightness: z
      .tuple([z.number().min(0).max(255), z.number().min(0).max(255)])
      .describe(
        'Mean brightness (0–255) outside which "exposure" fails: too dark below the first, too bright above the second.',
      ),
  }),
  /** Video encoding: the ffmpeg binary (null = the one shipped in @ffmpeg-installer/ffmpeg). */
  video: z.strictObject({ ffmpegPath: z.string().min(1).nullable() }),
  providers: z
    .record(z.string().min(1), ProviderSchema)
    .describe(
      "Providers by name, each { type, … } with the keys of its type; models name them in provider or providers. Two names are special and must be of type openai: `vision` (alt text, custom rating scales, review's judge) and `chat` (magic prompts); they make no images.",
    ),
  embedded: z.strictObject({
    preload: z
      .boolean()
      .default(true)
      .describe(
        'Load the enabled models in the background at start, so the first request does not wait for a load; false: each loads on first use.',
      ),
    nsfw: z.strictObject({
      enabled: z
        .boolean()
        .describe(
          'Rate the nsfw_sfw scale with the embedded model, unless providers.vision does (its nsfw: true); false: nsfw_sfw requests then fail validation (VALIDATION_ERROR).',
        ),
      timeoutMs: z
        .number()
        .int()
        .min(1000)
        .describe(
          "Milliseconds a rating (or the model's load) may take before it fails with TIMEOUT; taken when the model is first used, a reload does not change it.",
        ),
    }),
    backgroundRemoval: z.strictObject({
      enabled: z
        .boolean()
        .describe(
          'Remove backgrounds with the embedded model; false: background-removal requests fail validation (VALIDATION_ERROR).',
        ),
      model: z
        .enum(['small', 'medium'])
        .describe(
          'The ISNet model: `small` or `medium`; taken when the model is first used, a reload does not change it.',
        ),
      threads: z
        .number()
        .int()
        .min(1)
        .max(16)
        .describe(
          'onnxruntime threads of the model (1..16); taken when the model is first used, a reload does not change it.',
        ),
      timeoutMs: z
        .number()
        .int()
        .min(1000)
        .describe(
          "Milliseconds a removal (or the model's load) may take before it fails with TIMEOUT; taken when the model is first used, a reload does not change it.",
        ),
    }),
    altText: z.strictObject({
      enabled: z
        .boolean()
        .describe(
          'Write alt text with the embedded describer, unless providers.vision does; false: alt-text requests then fail validation (VALIDATION_ERROR), and review has no OCR.',
        ),
      ocr: z
        .boolean()
        .describe(
          "Read the text in images with tesseract.js (English): quoted in alt text, and measured by review's text checks (without OCR they go to the vision judge); false: no OCR. Taken for alt text when the describer is first used; a reload does not change that.",
        ),
    }),
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
  /**
   * How long what ages out is kept (docs/data-lifecycle.md#retention): each a duration (30d, 12h,
   * 90m) or "off" (kept forever). The sweep (work.sweepIntervalMs) removes what is older, in
   * batches, in one process of a fleet; outputs, uploads and tasks may be set per account.
   */
  retention: z
    .strictObject({
      outputs: Retention(
        'outputs',
        'How long a settled task keeps its outputs (images, videos, thumbnails) and text (request, result, webhook payloads), from its settlement; then it reads as deleted (dataRemoved: true). At least 1h; per account: imgtask accounts set --retain-outputs.',
      ),
      uploads: Retention(
        'uploads',
        'How long an uploaded image (POST /image/upload) is kept, from its upload. At least 1h; per account: imgtask accounts set --retain-uploads.',
      ),
      tasks: Retention(
        'tasks',
        "How long a settled task's record is kept at all, from its settlement (its data is removed with it); the ledger keeps its charge. At least 31d, so the current month's spend and usage stay whole; per account: imgtask accounts set --retain-tasks.",
      ),
      deliveries: Retention(
        'deliveries',
        "How long a webhook delivery's log (attempts) and its event's payload are kept once the delivery is done (delivered or failed), from its last attempt. At least 1h.",
      ),
      consoleSessions: Retention(
        'consoleSessions',
        'How long an expired console session or sign-in link is kept after it expired. At least 1h.',
      ),
    })
    .default(RETENTION_DEFAULTS),
  provenance: ProvenanceSchema.default({ enabled: true, includePrompt: false }).describe(
    'C2PA Content Credentials on every stored image and video: the signing certificate and key (or a local one made at first start), a timestamp authority, whether the prompt is included, and the extra trust anchors of verify (docs/provenance.md). Read at start.',
  ),
});

/** The config as loaded: the settings, and the ComfyUI workflows models name, read and checked (keyed `models.<id>` / `videoModels.<id>`). */
export type Config = z.infer<typeof ConfigSchema> & { workflows: Readonly<Record<string, LoadedWorkflow>> };
export type ModelConfig = z.infer<typeof ModelSchema>;
export type VideoModelConfig = z.infer<typeof VideoModelSchema>;

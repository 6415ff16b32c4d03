import { z } from 'zod';

// Providers by type: their keys, base URLs, concurrency and timeouts.

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

export const ProviderSchema = z.discriminatedUnion('type', [
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

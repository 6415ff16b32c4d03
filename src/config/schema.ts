import { z } from 'zod';
import { parseDuration } from '../domain/time.js';

const UsdString = z.string().regex(/^\d{1,10}(\.\d{1,6})?$/, 'a decimal USD amount such as "0.002"');
const Duration = z.string().refine((value) => parseDuration(value) !== null, 'a duration such as 90s, 15m, 1h or 30d');

export const ModelSchema = z.strictObject({
  provider: z.string().min(1).optional(),
  providers: z.array(z.string().min(1)).min(1).optional(),
  price: z.strictObject({ perImage: UsdString, perInput: UsdString, perImage4k: UsdString.optional() }),
  capabilities: z.strictObject({
    maxInputs: z.number().int().min(0).max(20),
    supports4k: z.boolean(),
    negativePrompt: z.boolean(),
    /** What `size: auto` resolves to, as WxH. Default: the 1:1 base size. */
    nativeSize: z.string().regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1024x1024').optional(),
  }),
  options: z.record(z.string(), z.unknown()).default({}),
});

export const ProviderSchema = z.looseObject({
  type: z.string().min(1),
  concurrency: z.number().int().min(1).max(64).default(1),
});

export const ConfigSchema = z.strictObject({
  server: z.strictObject({
    host: z.string().min(1),
    port: z.number().int().min(0).max(65535),
    bodyLimitBytes: z.number().int().min(1024),
  }),
  publicUrl: z.url({ protocol: /^https?$/ }).nullable(),
  store: z.strictObject({ snapshotEveryBytes: z.number().int().min(4096) }),
  work: z.strictObject({
    defaultConcurrency: z.number().int().min(1).max(64),
    lanes: z.record(z.string(), z.number().int().min(1).max(64)),
    shutdownGraceMs: z.number().int().min(0).max(600_000),
    retryBaseMs: z.number().int().min(0).max(60_000),
    sweepIntervalMs: z.number().int().min(1000),
  }),
  limits: z.strictObject({
    requestsPerMinutePerKey: z.number().int().min(1).nullable(),
    maxPendingTasks: z.number().int().min(1),
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
  images: z.strictObject({ cacheMaxAgeSeconds: z.number().int().min(0) }),
  sync: z.strictObject({ timeoutMs: z.number().int().min(0).max(600_000) }),
  defaultModel: z.string().min(1),
  models: z.record(z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a model id (lowercase letters, digits, . _ -)'), ModelSchema),
  providers: z.record(z.string().min(1), ProviderSchema),
  destinations: z.strictObject({
    local: z.strictObject({ allowedRoots: z.array(z.string().startsWith('/', 'an absolute path')) }),
  }),
});

export type Config = z.infer<typeof ConfigSchema>;
export type ModelConfig = z.infer<typeof ModelSchema>;

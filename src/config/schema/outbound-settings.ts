import { z } from 'zod';

// What the service sends out: fetching inputs, webhook deliveries, and destinations.

export const FetchSection = z.strictObject({
  allowPrivateAddresses: z.boolean(),
  /**
   * Cloud metadata addresses stay refused whatever allowPrivateAddresses says; this alone opens them
   * (docs/security.md#cloud-metadata-addresses).
   */
  allowMetadataAddresses: z.boolean().default(false),
  maxBytes: z.number().int().min(1024),
  timeoutMs: z.number().int().min(100),
  maxRedirects: z.number().int().min(0).max(20),
  maxPixels: z.number().int().min(1024),
});

export const WebhooksSection = z.strictObject({
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
});

export const DestinationsSection = z.strictObject({
  local: z.strictObject({ allowedRoots: z.array(z.string().startsWith('/', 'an absolute path')) }),
  allowPrivateAddresses: z.boolean(),
  timeoutMs: z.number().int().min(100).max(600_000),
});

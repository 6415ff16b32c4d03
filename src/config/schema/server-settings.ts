import { z } from 'zod';
import { parseProxyRange } from '../../domain/client-address.js';
import { CorsOrigin } from './setting-fields.js';

// The HTTP server section and the CORS origins.

export const ServerSection = z.strictObject({
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
});

export const CorsSection = z.strictObject({
  /**
   * Browser origins allowed cross-origin (compared as the browser sends them: scheme://host[:port]), or "*"; [] = no
   * CORS headers.
   */
  origins: z.array(CorsOrigin),
});

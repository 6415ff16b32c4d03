import { z } from 'zod';
import { RETENTION_DEFAULTS, type RetentionKind, retentionProblem } from '../../domain/retention.js';
import { parseDuration } from '../../domain/time.js';

// Field shapes several sections share: USD amounts, durations, retention settings, origins, model ids.

export const UsdString = z.string().regex(/^\d{1,10}(\.\d{1,6})?$/, 'a decimal USD amount such as "0.002"');
export const Duration = z
  .string()
  .refine((value) => parseDuration(value) !== null, 'a duration such as 90s, 15m, 1h or 30d');

/** A retention setting of `kind`: a duration at or above the kind's floor, or "off". */
export const Retention = (kind: RetentionKind, what: string) =>
  z
    .string()
    .superRefine((value, ctx) => {
      const problem = retentionProblem(kind, value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .default(RETENTION_DEFAULTS[kind])
    .describe(what);

/** A browser origin, normalized as browsers send it (lowercase host, no default port), or "*". */
export const CorsOrigin = z.string().transform((value, ctx) => {
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

export const ModelId = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a model id (lowercase letters, digits, . _ -)');

import { z } from 'zod';
import { TASK_ERROR_CODES } from '../domain/task-status.js';

/**
 * Result pieces several task types share (docs/api/images.md, docs/api/destinations.md). Each type's module exports its
 * own
 * `…Result` schema built from these: the API describes and checks task results with them.
 */
export const UsdText = z.string().describe('decimal USD, e.g. "0.0002"');
/**
 * A failed item's error: its code, and why when the item knows (a URL that could not be fetched says what went wrong).
 */
export const ItemError = z.object({ code: z.enum(TASK_ERROR_CODES), message: z.string().optional() });

/**
 * Where a stored image went: the destination's own URL, or why delivery failed (the image stays at its service_url).
 */
export const DestinationOutcome = z.union([
  z.object({ name: z.string(), status: z.literal('success'), key: z.string(), url: z.string().nullable() }),
  z.object({
    name: z.string(),
    status: z.literal('failed'),
    error: z.object({ code: z.string(), message: z.string(), provider_response: z.string().optional() }),
  }),
]);

/**
 * Whether a made image's or video's stored bytes carry C2PA Content Credentials (docs/provenance.md); absent on items
 * stored before outputs were signed.
 */
export const Provenance = z
  .enum(['signed', 'unsigned'])
  .optional()
  .describe(
    'signed: the stored file (as served and delivered) carries C2PA Content Credentials; unsigned: provenance is off, or signing is unavailable on this server',
  );

/** One result per submitted URL, in order (rate and alt). */
export const urlResults = <Success extends z.ZodRawShape>(success: Success) =>
  z.object({
    results: z.array(
      z.discriminatedUnion('status', [
        z.object({ status: z.literal('success'), url: z.string(), ...success }),
        z.object({ status: z.literal('failed'), url: z.string(), error: ItemError }),
      ]),
    ),
  });

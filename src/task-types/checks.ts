import { AppError } from '../domain/errors.js';
import type { DestinationLookup } from '../services/ports.js';
import { LIMITS } from './request-parts.js';

/**
 * Checks after the schema passed (VALIDATION_ERROR, docs/reference/errors.md#request-errors): they answer 400 with a
 * code.
 */
export function checkMetadata(metadata: unknown): void {
  if (metadata === undefined) return;
  const bytes = Buffer.byteLength(JSON.stringify(metadata));
  if (bytes > LIMITS.metadataBytes)
    throw new AppError('VALIDATION_ERROR', `metadata is ${bytes} bytes; at most ${LIMITS.metadataBytes} are allowed`);
}

export async function checkDestination(
  destinations: DestinationLookup,
  accountId: string,
  name: string | undefined,
): Promise<void> {
  if (name !== undefined && !(await destinations.exists(accountId, name))) {
    throw new AppError('VALIDATION_ERROR', `the account has no destination named "${name}"`);
  }
}

export function requireProvider(available: unknown, what: string): void {
  if (!available)
    throw new AppError('VALIDATION_ERROR', `${what} needs a provider that this service has not configured`);
}

/** Where a vision provider's setup is shown, for the errors that ask for one (an OpenAI and a local Ollama config). */
export const VISION_SETUP = 'docs/providers.md#remote shows an OpenAI or a local Ollama setup';

/** A vision provider (`providers.vision`) that `what` needs, named with where its setup is shown. */
export function requireVision(available: unknown, what: string): void {
  if (!available)
    throw new AppError(
      'VALIDATION_ERROR',
      `${what} needs a vision provider (providers.vision), which this service has not configured; ${VISION_SETUP}`,
    );
}

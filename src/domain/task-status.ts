export type TaskStatus = 'pending' | 'completed' | 'failed';
export const TASK_STATUSES: readonly TaskStatus[] = ['pending', 'completed', 'failed'];

/**
 * Task failure codes (docs/reference/errors.md#task-failure-codes), plus TASK_CANCELLED (POST /tasks/{id}/cancel, ours:
 * an addition to the interface).
 */
export const TASK_ERROR_CODES = [
  'RESTRICTED_CONTENT',
  'INVALID_PROMPT',
  'INVALID_INPUT',
  'CAPABILITY_NOT_SUPPORTED',
  'PROVIDERS_BUSY',
  'RATE_LIMITED',
  'TIMEOUT',
  'PROVIDER_ERROR',
  'FETCH_FAILED',
  'RATING_FAILED',
  'ALT_GENERATION_FAILED',
  'REVIEW_FAILED',
  'TASK_EXPIRED',
  'ENQUEUE_FAILED',
  'TASK_CANCELLED',
  'UNKNOWN_ERROR',
] as const;
export type TaskErrorCode = (typeof TASK_ERROR_CODES)[number];

/** What each task failure code means, one line each (docs/reference/errors.md is generated from it). */
export const TASK_ERROR_MEANINGS: Readonly<Record<TaskErrorCode, string>> = {
  RESTRICTED_CONTENT: 'The provider or model refused the content; not retried by the service, the caller may resend.',
  INVALID_PROMPT: 'The prompt is empty or too long for the model.',
  INVALID_INPUT: 'An input image could not be fetched or read.',
  CAPABILITY_NOT_SUPPORTED: 'The model does not support an option sent (a _4k size on a model without 4K, say).',
  PROVIDERS_BUSY: 'No provider of the model had capacity; retry later.',
  RATE_LIMITED: 'The providers kept rate-limiting; retry shortly.',
  TIMEOUT: 'The provider did not answer in time.',
  PROVIDER_ERROR: 'The provider failed for another reason.',
  FETCH_FAILED:
    'Rate, alt or review could not fetch the URL (refused by the SSRF guard, too large, timed out or not an image).',
  RATING_FAILED: 'Rating ran but gave nothing usable.',
  ALT_GENERATION_FAILED: 'Alt text ran but gave nothing usable.',
  REVIEW_FAILED: 'Review ran but gave nothing usable.',
  TASK_EXPIRED:
    'The task stayed pending 24 h after its last update and was swept, or its deadline (Cancel-After) passed before the item finished.',
  ENQUEUE_FAILED: 'Queueing failed right after creation; the hold was released.',
  TASK_CANCELLED: 'The task was cancelled (POST /tasks/{id}/cancel) before this item finished.',
  UNKNOWN_ERROR: 'Nothing else matched.',
};

/**
 * Codes worth another attempt on another provider (docs/api/tasks.md; the Retried column of
 * docs/reference/errors.md#task-failure-codes).
 */
const RETRYABLE: ReadonlySet<TaskErrorCode> = new Set(['PROVIDERS_BUSY', 'RATE_LIMITED', 'TIMEOUT', 'PROVIDER_ERROR']);
export const isRetryable = (code: TaskErrorCode): boolean => RETRYABLE.has(code);

export interface TaskError {
  code: TaskErrorCode;
  message?: string;
}

/**
 * What a driver (provider, fetcher) throws when work fails. Task failures are data: the
 * worker records it on the item rather than letting it escape as a request error.
 */
export class ProviderError extends Error {
  readonly code: TaskErrorCode;
  readonly retryable: boolean;
  /** The provider's own words, kept for operators (never a secret). */
  readonly providerResponse?: string;

  /** `cause`: what was thrown underneath, for the log (its message is never shown to the client). */
  constructor(
    code: TaskErrorCode,
    message?: string,
    options: { retryable?: boolean; providerResponse?: string; cause?: unknown } = {},
  ) {
    // An outcome with a code, not a bug: no stack is captured (capturing one cost more than the
    // rest of an item that fails at once). What went wrong underneath keeps its own, in `cause`.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message ?? code, options.cause === undefined ? undefined : { cause: options.cause });
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.name = 'ProviderError';
    this.code = code;
    this.retryable = options.retryable ?? isRetryable(code);
    this.providerResponse = options.providerResponse;
  }
}

/** Up to 4 attempts per image and 3 per video before a retryable code is reported (docs/api/tasks.md). */
export const MAX_ATTEMPTS = { image: 4, video: 3 } as const;

/** A task pending this long after its last update is swept as TASK_EXPIRED (docs/api/tasks.md). */
export const TASK_EXPIRY_MS = 24 * 60 * 60 * 1000;

/**
 * A task's metadata: what its request carried under `metadata` (docs/api/images.md#generate-post-imagegenerate), else
 * null.
 */
export function metadataOf(request: unknown): unknown {
  return request !== null && typeof request === 'object' && 'metadata' in request
    ? (request as { metadata: unknown }).metadata
    : null;
}

/**
 * Whether metadata matches every `key = value` filter: the value at the top-level key,
 * a string, number or boolean, compared as text (as query strings carry it).
 */
export function metadataMatches(metadata: unknown, filters: Readonly<Record<string, string>>): boolean {
  const entries = Object.entries(filters);
  if (entries.length === 0) return true;
  if (metadata === null || typeof metadata !== 'object') return false;
  return entries.every(([key, value]) => {
    const actual = Object.hasOwn(metadata, key) ? (metadata as Record<string, unknown>)[key] : undefined;
    return actual !== undefined && actual !== null && typeof actual !== 'object' && String(actual) === value;
  });
}

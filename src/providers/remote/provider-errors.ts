import { ProviderError } from '../../domain/task-status.js';
import { ProviderHttpError, type ProviderHttpResponse } from '../../net/provider-http.js';

/** What a provider said, cut short, for operators; never carries our request (or its key). */
export const excerpt = (text: string): string => (text.length > 300 ? `${text.slice(0, 297)}...` : text);

const REFUSAL = /content[_ ]policy|moderation|safety system|content[_ ]filter|not allowed|nsfw content/i;
const BAD_PROMPT = /prompt/i;

/**
 * Maps a provider's HTTP failure to task failure codes (docs/reference/errors.md#task-failure-codes): a refusal or
 * content filter →
 * RESTRICTED_CONTENT (not retried); a bad prompt → INVALID_PROMPT (not retried); 429 →
 * RATE_LIMITED; anything else → PROVIDER_ERROR, retried on the next provider.
 */
export function httpFailure(provider: string, res: ProviderHttpResponse): ProviderError {
  const text = res.text();
  let message = '';
  let code = '';
  let param = '';
  try {
    const error = (
      res.json() as {
        error?: { message?: string; code?: string; type?: string; param?: string } | string;
        detail?: string;
      }
    ).error;
    if (typeof error === 'string') message = error;
    else if (error) {
      message = error.message ?? '';
      code = `${error.code ?? ''} ${error.type ?? ''}`;
      param = error.param ?? '';
    }
  } catch {
    message = text;
  }
  const said = excerpt(message || text);
  const options = { providerResponse: said };
  if (res.status === 429) return new ProviderError('RATE_LIMITED', `${provider} is rate limiting (HTTP 429)`, options);
  if (res.status >= 400 && res.status < 500 && (REFUSAL.test(code) || REFUSAL.test(message))) {
    return new ProviderError('RESTRICTED_CONTENT', `${provider} refused the content: ${said}`, {
      ...options,
      retryable: false,
    });
  }
  if (
    res.status === 400 &&
    (param === 'prompt' || (BAD_PROMPT.test(message) && /too long|empty|invalid|maximum/i.test(message)))
  ) {
    return new ProviderError('INVALID_PROMPT', `${provider} refused the prompt: ${said}`, {
      ...options,
      retryable: false,
    });
  }
  return new ProviderError('PROVIDER_ERROR', `${provider} answered HTTP ${res.status}: ${said}`, options);
}

/** Maps a transport failure: no answer in time → TIMEOUT; the rest → PROVIDER_ERROR. */
export function transportFailure(provider: string, err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof ProviderHttpError && err.kind === 'timeout')
    return new ProviderError('TIMEOUT', `${provider}: ${err.message}`);
  return new ProviderError('PROVIDER_ERROR', `${provider}: ${(err as Error).message}`);
}

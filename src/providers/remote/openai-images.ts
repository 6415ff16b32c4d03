import { IMAGE_MIME } from '../../domain/media-types.js';
import { ProviderError } from '../../domain/task-status.js';
import { type ProviderHttpResponse, providerRequest } from '../../net/provider-http.js';
import type { GeneratedImage, GenerateParams, ImageGenerator } from '../provider-types.js';
import { nearestSize } from './nearest-size.js';
import { excerpt, httpFailure, transportFailure } from './provider-errors.js';

export interface OpenAiImagesOptions {
  name: string;
  baseUrl: string;
  model: string;
  apiKey?: string;
  sizes: readonly string[];
  responseFormat: 'b64_json' | 'url' | null;
  editImageField: 'image' | 'image[]';
  /**
   * Send the item's seed (`seed`): LocalAI and some other compatible servers take it; OpenAI itself refuses unknown
   * fields.
   */
  seed?: boolean;
  timeoutMs: number;
  /**
   * Fetches an image the provider answers with by URL (the SSRF-guarded fetcher, or a direct read of the provider's own
   * host); `signal` is the item's.
   */
  fetchImage: (url: string, signal: AbortSignal) => Promise<Buffer>;
}

/**
 * OpenAI-compatible image generation (OpenAI, LocalAI and compatible servers):
 * `POST {baseUrl}/images/generations` with JSON, or `POST {baseUrl}/images/edits` with the
 * inputs as multipart files when there are any. Answers come as `b64_json` or `url`.
 */
export function createOpenAiImages(options: OpenAiImagesOptions): ImageGenerator {
  const headers = (): Record<string, string> => (options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {});
  return {
    async generate(params: GenerateParams): Promise<GeneratedImage> {
      const size = nearestSize(options.sizes, params.width, params.height);
      const seed = options.seed && params.seed !== undefined ? params.seed : undefined;
      let res: ProviderHttpResponse;
      try {
        if (params.inputs.length === 0) {
          const body: Record<string, unknown> = { model: options.model, prompt: params.prompt, n: 1, size };
          if (options.responseFormat) body.response_format = options.responseFormat;
          if (seed !== undefined) body.seed = seed;
          res = await providerRequest(`${options.baseUrl}/images/generations`, {
            method: 'POST',
            headers: { ...headers(), 'content-type': 'application/json' },
            body: JSON.stringify(body),
            timeoutMs: options.timeoutMs,
            signal: params.signal,
          });
        } else {
          const form = new FormData();
          form.append('model', options.model);
          form.append('prompt', params.prompt);
          form.append('n', '1');
          form.append('size', size);
          if (options.responseFormat) form.append('response_format', options.responseFormat);
          if (seed !== undefined) form.append('seed', String(seed));
          const inputs = options.editImageField === 'image' ? params.inputs.slice(0, 1) : params.inputs;
          for (const [i, input] of inputs.entries())
            form.append(
              options.editImageField,
              new Blob([new Uint8Array(input.data)], { type: IMAGE_MIME[input.format] }),
              `input-${i}.${input.format}`,
            );
          res = await providerRequest(`${options.baseUrl}/images/edits`, {
            method: 'POST',
            headers: headers(),
            body: form,
            timeoutMs: options.timeoutMs,
            signal: params.signal,
          });
        }
      } catch (err) {
        throw transportFailure(options.name, err);
      }
      if (res.status < 200 || res.status >= 300) throw httpFailure(options.name, res);
      let first: { b64_json?: string; url?: string } | undefined;
      try {
        first = (res.json() as { data?: { b64_json?: string; url?: string }[] }).data?.[0];
      } catch {
        throw new ProviderError('PROVIDER_ERROR', `${options.name} answered something that is not JSON`, {
          providerResponse: excerpt(res.text()),
        });
      }
      if (first?.b64_json) return { data: Buffer.from(first.b64_json, 'base64') };
      if (first?.url) {
        try {
          return { data: await options.fetchImage(first.url, params.signal) };
        } catch (err) {
          throw new ProviderError(
            'PROVIDER_ERROR',
            `${options.name}: cannot fetch the image it answered with: ${(err as Error).message}`,
          );
        }
      }
      throw new ProviderError('PROVIDER_ERROR', `${options.name} answered without an image`, {
        providerResponse: excerpt(res.text()),
      });
    },
  };
}

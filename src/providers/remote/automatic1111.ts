import { ProviderError } from '../../domain/task-status.js';
import { type ProviderHttpResponse, providerRequest } from '../../net/provider-http.js';
import type { GeneratedImage, GenerateParams, ImageGenerator } from '../provider-types.js';
import { watchAutomatic1111Progress } from './automatic1111-progress.js';
import { excerpt, httpFailure, transportFailure } from './provider-errors.js';

export interface Automatic1111Options {
  name: string;
  baseUrl: string;
  model?: string;
  steps: number;
  cfgScale: number;
  sampler?: string;
  denoisingStrength: number;
  /** `user:pass` for a web UI started with --api-auth. */
  apiKey?: string;
  timeoutMs: number;
  /** How often `/sdapi/v1/progress` is read while a request runs (500 ms; tests shorten it). */
  progressIntervalMs?: number;
}

/** SD models want sides in multiples of 8. */
const multipleOf8 = (value: number) => Math.max(64, Math.round(value / 8) * 8);

/**
 * AUTOMATIC1111's web UI API: `POST /sdapi/v1/txt2img`, or `/sdapi/v1/img2img` with the first
 * input as `init_images` when there are inputs. The item's seed is sent, so a retried item asks
 * for the same picture. While the request runs, the server's progress is polled and reported.
 */
export function createAutomatic1111(options: Automatic1111Options): ImageGenerator {
  // A1111 runs one job at a time and its progress endpoint speaks of the job it is running, not
  // of a request. With one request of ours in flight that job is ours (unless someone else uses
  // the same server, or it still runs a job we gave up on); with more (concurrency > 1), it is
  // whichever the server took first, so no item is told a figure that may be another's.
  let inFlight = 0;
  return {
    async generate(params: GenerateParams): Promise<GeneratedImage> {
      const body: Record<string, unknown> = {
        prompt: params.prompt,
        negative_prompt: params.negativePrompt ?? '',
        width: multipleOf8(params.width),
        height: multipleOf8(params.height),
        steps: options.steps,
        cfg_scale: options.cfgScale,
        // Without a seed (a task planned before seeds were kept), the one it was made with before.
        seed: params.seed ?? 1000 + params.index,
        batch_size: 1,
        n_iter: 1,
      };
      if (options.sampler) body.sampler_name = options.sampler;
      if (options.model) body.override_settings = { sd_model_checkpoint: options.model };
      const img2img = params.inputs.length > 0;
      if (img2img) {
        body.init_images = [params.inputs[0].data.toString('base64')];
        body.denoising_strength = options.denoisingStrength;
      }
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (options.apiKey) headers.authorization = `Basic ${Buffer.from(options.apiKey).toString('base64')}`;
      let res: ProviderHttpResponse;
      inFlight++;
      const onProgress = params.onProgress;
      const stopWatching = onProgress
        ? watchAutomatic1111Progress({
            baseUrl: options.baseUrl,
            headers: options.apiKey ? { authorization: headers.authorization } : {},
            intervalMs: options.progressIntervalMs ?? 500,
            pollTimeoutMs: Math.min(options.timeoutMs, 10_000),
            onProgress,
            reportable: () => inFlight === 1,
            signal: params.signal,
          })
        : null;
      try {
        res = await providerRequest(`${options.baseUrl}/sdapi/v1/${img2img ? 'img2img' : 'txt2img'}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          timeoutMs: options.timeoutMs,
          signal: params.signal,
        });
      } catch (err) {
        throw transportFailure(options.name, err);
      } finally {
        inFlight--;
        await stopWatching?.();
      }
      if (res.status < 200 || res.status >= 300) throw httpFailure(options.name, res);
      let image: string | undefined;
      try {
        image = (res.json() as { images?: string[] }).images?.[0];
      } catch {
        throw new ProviderError('PROVIDER_ERROR', `${options.name} answered something that is not JSON`, {
          providerResponse: excerpt(res.text()),
        });
      }
      if (!image)
        throw new ProviderError('PROVIDER_ERROR', `${options.name} answered without an image`, {
          providerResponse: excerpt(res.text()),
        });
      // Some builds prefix a data URL.
      return { data: Buffer.from(image.replace(/^data:image\/\w+;base64,/, ''), 'base64') };
    },
  };
}

import sharp from 'sharp';
import { parseSizeText } from '../../domain/sizes.js';
import { ProviderError } from '../../domain/task-status.js';
import { type ProviderHttpResponse, providerRequest } from '../../net/provider-http.js';
import type { GeneratedVideo, SourceImage, VideoGenerator, VideoParams } from '../provider-types.js';
import { nearestSize } from './nearest-size.js';
import { excerpt, httpFailure, transportFailure } from './provider-errors.js';

export interface OpenAiVideoOptions {
  name: string;
  baseUrl: string;
  model: string;
  sizes: string[];
  seconds: number[];
  pollIntervalMs: number;
  timeoutMs: number;
  apiKey?: string;
}

/** A clip is far smaller than this; the cap keeps a runaway answer from filling memory. */
export const MAX_VIDEO_BYTES = 200 * 1024 * 1024;
/** Job status answers are small JSON. */
const MAX_JOB_BYTES = 1024 * 1024;
/** Polls that fail in a row (5xx, 429, no answer) before the job is given up; one blip must not waste a paid job. */
const MAX_POLL_FAILURES = 3;
const DELETE_TIMEOUT_MS = 10_000;

/** A job's failure code that says the provider refused the content. */
const REFUSED = /moderation|policy|safety|content[_ ]filter|blocked/i;

interface VideoJob {
  id: string;
  status: string;
  progress?: number;
  error?: { code?: string; message?: string } | null;
}

/** The configured clip length for a duration: the shortest at or above it, else the longest. */
export function nearestSeconds(seconds: readonly number[], durationS: number): number {
  const sorted = [...seconds].sort((a, b) => a - b);
  return sorted.find((s) => s >= durationS) ?? sorted[sorted.length - 1];
}

/** True when the bytes open with an ISO BMFF `ftyp` box, as every MP4 does. */
export function looksLikeMp4(data: Buffer): boolean {
  return data.length >= 12 && data.toString('latin1', 4, 8) === 'ftyp' && data.readUInt32BE(0) >= 8;
}

/**
 * An OpenAI-compatible video API (OpenAI's Videos API and servers that copy it):
 * `POST {baseUrl}/videos` (multipart: model, prompt, seconds, size, input_reference), poll
 * `GET /videos/{id}` until `completed` or `failed`, download `GET /videos/{id}/content` (MP4).
 * The whole job is bounded by `timeoutMs`; a job left behind by a timeout, an abort or a
 * failed poll is deleted (best effort) so the provider stops spending on it.
 */
export function createOpenAiVideo(options: OpenAiVideoOptions): VideoGenerator {
  const { name } = options;
  const headers = (): Record<string, string> => (options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {});
  const jobUrl = (id: string) => `${options.baseUrl}/videos/${encodeURIComponent(id)}`;

  /** Best effort: a job nobody will collect is deleted; its failure changes nothing. */
  const deleteJob = (id: string): void => {
    providerRequest(jobUrl(id), {
      method: 'DELETE',
      headers: headers(),
      timeoutMs: DELETE_TIMEOUT_MS,
      maxBytes: 64 * 1024,
    }).catch(() => {});
  };

  return {
    async generate(params: VideoParams): Promise<GeneratedVideo> {
      const deadline = Date.now() + options.timeoutMs;
      const timeout = () =>
        new ProviderError('TIMEOUT', `${name}: the video was not ready within ${options.timeoutMs} ms`);
      const remaining = () => {
        const left = deadline - Date.now();
        if (left <= 0) throw timeout();
        return left;
      };
      const call = async (
        url: string,
        method: 'GET' | 'POST',
        extra: { body?: FormData; maxBytes?: number } = {},
      ): Promise<ProviderHttpResponse> => {
        try {
          return await providerRequest(url, {
            method,
            headers: headers(),
            timeoutMs: remaining(),
            signal: params.signal,
            ...extra,
          });
        } catch (err) {
          throw transportFailure(name, err);
        }
      };

      const size = nearestSize(options.sizes, params.width, params.height);
      const form = new FormData();
      form.append('model', options.model);
      form.append('prompt', params.prompt);
      form.append('seconds', String(nearestSeconds(options.seconds, params.durationS)));
      form.append('size', size);
      if (params.input)
        form.append(
          'input_reference',
          new Blob([new Uint8Array(await firstFrame(params.input, size))], { type: 'image/png' }),
          'input_reference.png',
        );

      const created = await call(`${options.baseUrl}/videos`, 'POST', { body: form, maxBytes: MAX_JOB_BYTES });
      if (created.status < 200 || created.status >= 300) throw httpFailure(name, created);
      let job = jobOf(name, created);
      const id = job.id;
      let done = false;
      try {
        let failures = 0;
        while (job.status !== 'completed') {
          if (job.status === 'failed' || job.status === 'cancelled') {
            done = true;
            throw jobFailure(name, job);
          }
          await sleep(Math.min(options.pollIntervalMs, remaining()), params.signal);
          remaining();
          let polled: ProviderHttpResponse;
          try {
            polled = await call(jobUrl(id), 'GET', { maxBytes: MAX_JOB_BYTES });
          } catch (err) {
            if (params.signal.aborted || (err as ProviderError).code === 'TIMEOUT' || ++failures >= MAX_POLL_FAILURES)
              throw err;
            continue;
          }
          if ((polled.status >= 500 || polled.status === 429) && ++failures < MAX_POLL_FAILURES) continue;
          if (polled.status < 200 || polled.status >= 300) throw httpFailure(name, polled);
          failures = 0;
          job = jobOf(name, polled);
        }
        done = true;
        const content = await call(`${jobUrl(id)}/content`, 'GET', { maxBytes: MAX_VIDEO_BYTES });
        if (content.status < 200 || content.status >= 300) throw httpFailure(name, content);
        if (!looksLikeMp4(content.body))
          throw new ProviderError('PROVIDER_ERROR', `${name} answered content that is not an MP4`, {
            providerResponse: excerpt(content.body.subarray(0, 300).toString('utf8')),
          });
        return { data: content.body, format: 'mp4' };
      } catch (err) {
        if (!done) deleteJob(id);
        throw err;
      }
    },
  };
}

/** The first frame the model takes must be exactly the clip's size: cover it and send PNG. */
async function firstFrame(input: SourceImage, size: string): Promise<Buffer> {
  const parsed = parseSizeText(size);
  if (!parsed)
    throw new ProviderError('PROVIDER_ERROR', `the configured size ${size} is not WIDTHxHEIGHT`, { retryable: false });
  try {
    return await sharp(input.data).rotate().resize(parsed.width, parsed.height, { fit: 'cover' }).png().toBuffer();
  } catch (err) {
    throw new ProviderError('INVALID_INPUT', `the input image cannot be read: ${(err as Error).message}`, {
      retryable: false,
    });
  }
}

function jobOf(name: string, res: ProviderHttpResponse): VideoJob {
  let job: Partial<VideoJob> | undefined;
  try {
    job = res.json() as Partial<VideoJob>;
  } catch {
    throw new ProviderError('PROVIDER_ERROR', `${name} answered something that is not JSON`, {
      providerResponse: excerpt(res.text()),
    });
  }
  if (typeof job?.id !== 'string' || job.id === '' || typeof job.status !== 'string')
    throw new ProviderError('PROVIDER_ERROR', `${name} answered without a video job`, {
      providerResponse: excerpt(res.text()),
    });
  return job as VideoJob;
}

function jobFailure(name: string, job: VideoJob): ProviderError {
  const code = job.error?.code ?? '';
  const said = excerpt(job.error?.message || code || job.status);
  const options = { providerResponse: said };
  if (REFUSED.test(code) || REFUSED.test(job.error?.message ?? ''))
    return new ProviderError('RESTRICTED_CONTENT', `${name} refused the content: ${said}`, {
      ...options,
      retryable: false,
    });
  return new ProviderError('PROVIDER_ERROR', `${name}: the video job ${job.status}: ${said}`, options);
}

/** Waits between polls; the caller's abort ends the wait at once. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = () => reject(new ProviderError('PROVIDER_ERROR', 'the video job was cancelled'));
    if (signal.aborted) return aborted();
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      aborted();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

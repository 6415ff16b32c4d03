import { setTimeout as sleep } from 'node:timers/promises';
import { providerRequest } from '../../net/provider-http.js';

export interface ProgressWatch {
  baseUrl: string;
  headers: Record<string, string>;
  intervalMs: number;
  /** Bounds each poll; a poll that takes longer is dropped and the next one tried. */
  pollTimeoutMs: number;
  onProgress: (fraction: number) => void;
  /** Whether the server's figure is ours to report now (see createAutomatic1111). */
  reportable: () => boolean;
  signal: AbortSignal;
}

/** A progress answer carries the current image too unless told not to; a few kilobytes is plenty without it. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * Reads `GET /sdapi/v1/progress?skip_current_image=true` every `intervalMs` while a txt2img or
 * img2img request runs, and reports `progress` (0..1) when it has grown. Only growth is reported:
 * the server's figure drops to 0 between its jobs (the moment our request has finished but its
 * answer is still on the way) and restarts for a hires-fix pass, and a bar going backwards would
 * say nothing true about our item. A failed or malformed poll is ignored: progress is a courtesy,
 * never a reason to fail the image. The returned function stops the polling and resolves once no
 * poll is in flight.
 */
export function watchAutomatic1111Progress(watch: ProgressWatch): () => Promise<void> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  watch.signal.addEventListener('abort', onAbort, { once: true });
  const url = `${watch.baseUrl}/sdapi/v1/progress?skip_current_image=true`;
  let reported = 0;
  const loop = (async () => {
    while (!stop.signal.aborted) {
      try {
        await sleep(watch.intervalMs, undefined, { signal: stop.signal });
        const res = await providerRequest(url, {
          method: 'GET',
          headers: watch.headers,
          timeoutMs: watch.pollTimeoutMs,
          signal: stop.signal,
          maxBytes: MAX_ANSWER_BYTES,
        });
        if (res.status < 200 || res.status >= 300) continue;
        const progress = (res.json() as { progress?: unknown } | null)?.progress;
        if (typeof progress !== 'number' || !Number.isFinite(progress)) continue;
        const fraction = Math.min(1, progress);
        if (fraction > reported && !stop.signal.aborted && watch.reportable()) {
          reported = fraction;
          watch.onProgress(fraction);
        }
      } catch {
        // Stopped, or a poll that failed: the loop condition tells which.
      }
    }
  })();
  return async () => {
    stop.abort();
    watch.signal.removeEventListener('abort', onAbort);
    await loop;
  };
}

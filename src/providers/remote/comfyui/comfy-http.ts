import { createHash } from 'node:crypto';
import { ProviderError } from '../../../domain/task-status.js';
import { ProviderHttpError, type ProviderHttpResponse, providerRequest } from '../../../net/provider-http.js';
import type { SourceImage } from '../../provider-types.js';
import { excerpt, transportFailure } from '../provider-errors.js';
import { unreachable } from './failures.js';
import { scrubPaths } from './scrub-paths.js';

export interface ComfyServer {
  /** The provider's name in config, for messages. */
  name: string;
  baseUrl: string;
  /** Sent with every request (a proxy's credentials). */
  headers: Record<string, string>;
  /**
   * Told of each request's outcome: true when the server answered, false when it could not be reached
   * (workflow-check.ts).
   */
  reached?: (answered: boolean) => void;
}

/** A file a job wrote, as `outputs` in /history lists it. */
export interface ComfyFile {
  filename: string;
  subfolder: string;
  type: string;
}

/** A job as GET /history/{prompt_id} shows it once it ended. */
export interface HistoryEntry {
  outputs: Record<string, Record<string, unknown>>;
  status?: { status_str?: string; completed?: boolean; messages?: [string, Record<string, unknown>][] };
}

/** The queue as GET /queue shows it: each entry is [number, prompt_id, prompt, extra_data, outputs_to_execute]. */
export interface QueueState {
  queue_running: unknown[][];
  queue_pending: unknown[][];
}

/** How long one plain request (not the job) may take. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Answers of a gateway with no server behind it. */
const GATEWAY_DOWN = new Set([502, 503, 504]);
/** Images and videos a job made: bounded like any provider answer. */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

const EXTENSION: Record<SourceImage['format'], string> = { png: 'png', jpeg: 'jpg', webp: 'webp', gif: 'gif' };

/**
 * ComfyUI's HTTP routes (server.py), with the server's headers on every request. Transport
 * failures become PROVIDER_ERROR / TIMEOUT (retried on the model's next provider).
 */
export function comfyHttp(server: ComfyServer) {
  const call = async (
    method: 'GET' | 'POST',
    path: string,
    options: { json?: unknown; form?: FormData; signal?: AbortSignal; timeoutMs?: number; maxBytes?: number } = {},
  ): Promise<ProviderHttpResponse> => {
    const headers: Record<string, string> = { ...server.headers };
    if (options.json !== undefined) headers['content-type'] = 'application/json';
    let res: ProviderHttpResponse;
    try {
      res = await providerRequest(`${server.baseUrl}${path}`, {
        method,
        headers,
        body: options.form ?? (options.json === undefined ? undefined : JSON.stringify(options.json)),
        timeoutMs: options.timeoutMs ?? REQUEST_TIMEOUT_MS,
        signal: options.signal,
        maxBytes: options.maxBytes,
      });
    } catch (err) {
      // Refused, reset or cut off: the server is down (or restarting), not merely failing this request.
      if (err instanceof ProviderHttpError && err.kind === 'transport' && !options.signal?.aborted) {
        server.reached?.(false);
        throw unreachable(server.name, err.message.replace(/^cannot reach the provider: /, ''));
      }
      throw transportFailure(server.name, err);
    }
    // A proxy in front of the server answers these while nothing runs behind it.
    server.reached?.(!GATEWAY_DOWN.has(res.status));
    if (GATEWAY_DOWN.has(res.status)) throw unreachable(server.name, `HTTP ${res.status}`);
    return res;
  };
  const failed = (what: string, res: ProviderHttpResponse) =>
    new ProviderError('PROVIDER_ERROR', `${server.name}: ${what} answered HTTP ${res.status}`, {
      providerResponse: excerpt(res.text()),
    });
  const json = <T>(what: string, res: ProviderHttpResponse): T => {
    if (res.status < 200 || res.status >= 300) throw failed(what, res);
    try {
      return res.json() as T;
    } catch {
      throw new ProviderError('PROVIDER_ERROR', `${server.name}: ${what} answered something that is not JSON`, {
        providerResponse: excerpt(res.text()),
      });
    }
  };

  return {
    /** POST /upload/image: answers the name a LoadImage input takes (`subfolder/name` when in a subfolder). */
    async upload(image: SourceImage, signal: AbortSignal): Promise<string> {
      const form = new FormData();
      // Named by content: a retry or the same input again overwrites one file instead of adding another.
      const filename = `imgtask-${createHash('sha256').update(image.data).digest('hex').slice(0, 32)}.${EXTENSION[image.format]}`;
      form.append('image', new Blob([new Uint8Array(image.data)], { type: `image/${image.format}` }), filename);
      form.append('type', 'input');
      form.append('overwrite', 'true');
      const res = await call('POST', '/upload/image', { form, signal });
      // Larger than the server takes (--max-upload-size): another server would refuse it too.
      if (res.status === 413)
        throw new ProviderError(
          'INVALID_INPUT',
          `${server.name} refused an input image of ${image.data.length} bytes as too large`,
          { retryable: false },
        );
      const saved = json<{ name?: unknown; subfolder?: unknown }>('POST /upload/image', res);
      if (typeof saved.name !== 'string')
        throw new ProviderError('PROVIDER_ERROR', `${server.name}: POST /upload/image answered without a name`);
      return typeof saved.subfolder === 'string' && saved.subfolder !== ''
        ? `${saved.subfolder}/${saved.name}`
        : saved.name;
    },

    /**
     * POST /prompt: answers the prompt id. A graph ComfyUI refuses (400, or `node_errors`) fails
     * INVALID_INPUT, not retried: another server would refuse it too.
     */
    async queuePrompt(graph: unknown, clientId: string, signal: AbortSignal): Promise<string> {
      const res = await call('POST', '/prompt', { json: { prompt: graph, client_id: clientId }, signal });
      let body: { prompt_id?: unknown; error?: unknown; node_errors?: unknown } = {};
      try {
        body = res.json() as typeof body;
      } catch {}
      const nodeErrors = describeNodeErrors(body.node_errors);
      if (res.status === 400 || nodeErrors) {
        // ComfyUI queues a prompt with at least one valid output and reports the rest in
        // node_errors: the item fails all the same, so the queued part is taken off again.
        if (res.status < 300 && typeof body.prompt_id === 'string') await this.cancel(body.prompt_id).catch(() => {});
        const error =
          typeof body.error === 'string' ? body.error : (body.error as { message?: string } | undefined)?.message;
        throw new ProviderError(
          'INVALID_INPUT',
          `${server.name} refused the workflow: ${scrubPaths([error, nodeErrors].filter(Boolean).join(': ')) || `HTTP ${res.status}`}`,
          {
            retryable: false,
            providerResponse: excerpt(res.text()),
          },
        );
      }
      if (res.status < 200 || res.status >= 300) throw failed('POST /prompt', res);
      if (typeof body.prompt_id !== 'string')
        throw new ProviderError('PROVIDER_ERROR', `${server.name}: POST /prompt answered without a prompt_id`, {
          providerResponse: excerpt(res.text()),
        });
      return body.prompt_id;
    },

    /** GET /history/{prompt_id}: the job once it ended; undefined while it is queued or running. */
    async history(promptId: string, signal?: AbortSignal): Promise<HistoryEntry | undefined> {
      const entries = json<Record<string, HistoryEntry>>(
        'GET /history',
        await call('GET', `/history/${encodeURIComponent(promptId)}`, { signal }),
      );
      return entries[promptId];
    },

    /** GET /view: one output file's bytes. */
    async view(file: ComfyFile, signal: AbortSignal): Promise<Buffer> {
      const query = new URLSearchParams({ filename: file.filename, subfolder: file.subfolder, type: file.type });
      const res = await call('GET', `/view?${query}`, { signal, maxBytes: MAX_OUTPUT_BYTES, timeoutMs: 120_000 });
      if (res.status !== 200) throw failed(`GET /view of ${file.filename}`, res);
      return res.body;
    },

    queue: async (signal?: AbortSignal): Promise<QueueState> =>
      json<QueueState>('GET /queue', await call('GET', '/queue', { signal })),
    systemStats: async (signal?: AbortSignal): Promise<Record<string, unknown>> =>
      json<Record<string, unknown>>('GET /system_stats', await call('GET', '/system_stats', { signal })),
    /** GET /object_info: every node class the server has, with its inputs (object-info.ts reads it). */
    objectInfo: async (signal?: AbortSignal): Promise<unknown> =>
      json<unknown>('GET /object_info', await call('GET', '/object_info', { signal })),

    /** Whether the server's queue holds `promptId`, running or waiting. */
    async holds(promptId: string, signal?: AbortSignal): Promise<boolean> {
      const queue = await this.queue(signal);
      return [...queue.queue_running, ...queue.queue_pending].some((entry) => entry[1] === promptId);
    },

    /**
     * Stops `promptId` alone: removed from the queue (a no-op unless it waits there), then
     * interrupted if it runs. The queue is read after the delete, so a job that started in
     * between is still stopped; the interrupt names it, and is only sent when it is the one
     * running, because a server older than targeted interrupts stops whatever runs.
     */
    async cancel(promptId: string): Promise<void> {
      await call('POST', '/queue', { json: { delete: [promptId] } });
      const queue = await this.queue();
      if (queue.queue_running.some((entry) => entry[1] === promptId))
        await call('POST', '/interrupt', { json: { prompt_id: promptId } });
    },
  };
}
export type ComfyHttp = ReturnType<typeof comfyHttp>;

/** `node_errors` as one line (node, class, each error's message and details); undefined when there are none. */
export function describeNodeErrors(nodeErrors: unknown): string | undefined {
  if (typeof nodeErrors !== 'object' || nodeErrors === null || Array.isArray(nodeErrors)) return undefined;
  const lines: string[] = [];
  for (const [node, entry] of Object.entries(
    nodeErrors as Record<string, { class_type?: string; errors?: { message?: string; details?: string }[] }>,
  )) {
    const errors = (entry.errors ?? []).map((e) => [e.message, e.details].filter(Boolean).join(' — ')).join('; ');
    lines.push(`node ${node}${entry.class_type ? ` (${entry.class_type})` : ''}: ${errors || 'invalid'}`);
  }
  return lines.length ? lines.join('; ') : undefined;
}

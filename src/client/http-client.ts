import { basename } from 'node:path';
import type { z } from 'zod';
import type { AltBody, AltResponse } from '../api/routes/image/alt.js';
import type { GenerateResponse, generateBody } from '../api/routes/image/generate.js';
import type { RateBody, RateResponse } from '../api/routes/image/rate.js';
import type { RemoveBackgroundBody, RemoveBackgroundResponse } from '../api/routes/image/remove-background.js';
import type { ReviewBody, ReviewResponse } from '../api/routes/image/review.js';
import type { UploadResponse } from '../api/routes/image/upload.js';
import type { VerifyBody, VerifyResponse } from '../api/routes/image/verify.js';
import type { ListModelsResponse } from '../api/routes/models/list.js';
import type { CancelTaskResponse } from '../api/routes/tasks/cancel.js';
import type { DeleteTaskResponse } from '../api/routes/tasks/delete.js';
import type { GetTaskResponse } from '../api/routes/tasks/get.js';
import type { ListTasksResponse } from '../api/routes/tasks/list.js';
import type { GetTaskResultResponse } from '../api/routes/tasks/result.js';
import type { TaskProgress } from '../api/routes/tasks/schemas.js';
import type { GetTaskStatusResponse } from '../api/routes/tasks/status.js';
import type { GenerateVideoResponse, generateVideoBody } from '../api/routes/video/generate.js';
import type { ListVideoModelsResponse } from '../api/routes/video/models.js';
import { followTaskEvents, type TaskPreview } from './task-events.js';
import { type WebhookStreamEvent, webhookStreamEvents } from './webhook-events.js';

/** A request error from the API: its status and flat `{ code, message }` body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** What the create routes take: their body schemas' input (defaults may be left out). */
export type GenerateInput = z.input<ReturnType<typeof generateBody>>;
export type RateInput = z.input<typeof RateBody>;
export type AltInput = z.input<typeof AltBody>;
export type RemoveBackgroundInput = z.input<typeof RemoveBackgroundBody>;
export type VideoInput = z.input<ReturnType<typeof generateVideoBody>>;
export type ReviewInput = z.input<typeof ReviewBody>;

/** The full task (GET /tasks/{id}), typed by its task type. */
export type Task = GetTaskResponse['data'];
/** What a PAT may read of a task (GET /tasks/{id}/result). */
type TaskResult = GetTaskResultResponse['data'];
export type TaskStatus = GetTaskStatusResponse['data']['status'];
/** Where a pending task stands (GET /tasks/{id} and the live status stream's `progress`). */
export type { TaskProgress };
export type UploadedFile = UploadResponse['data']['files'][number];

/** A task as a credential can read it: the full task with an API key, its result view with a PAT. */
export type TaskView = Task | TaskResult;

/**
 * What any create may add besides its body: `cancelAfter`, sent as the Cancel-After header (a
 * duration such as 30s, 5m or 1h30m, from 1s to 24h: docs/api/tasks.md#deadlines-cancel-after).
 */
export interface CreateOptions {
  cancelAfter?: string;
}

/** Answers of rate and alt: 200 with the results, or 202 with the task to poll. */
export interface SyncAnswer<Data> {
  status: number;
  data: Data;
}

/** How `watch` reports while it follows a task. */
export interface WatchOptions {
  onPoll?: (status: TaskStatus) => void;
  onProgress?: (progress: TaskProgress) => void;
  onPreview?: (preview: TaskPreview) => void;
  timeoutMs?: number;
}

/** A typed client of the imgtask HTTP API (createClient). */
export interface Client {
  /** The server's URL, without a trailing slash. */
  base: string;
  generate(body: GenerateInput, options?: CreateOptions): Promise<GenerateResponse['data']>;
  removeBackground(body: RemoveBackgroundInput, options?: CreateOptions): Promise<RemoveBackgroundResponse['data']>;
  video(body: VideoInput, options?: CreateOptions): Promise<GenerateVideoResponse['data']>;
  rate(body: RateInput, options?: CreateOptions): Promise<SyncAnswer<RateResponse['data']>>;
  alt(body: AltInput, options?: CreateOptions): Promise<SyncAnswer<AltResponse['data']>>;
  review(body: ReviewInput, options?: CreateOptions): Promise<SyncAnswer<ReviewResponse['data']>>;
  /** The Content Credentials of a URL's file or an upload's (POST /image/verify): free, no task. */
  verify(body: VerifyBody): Promise<VerifyResponse['data']>;
  /** The Content Credentials of a local file's bytes (POST /image/verify/file): read by the server, nothing stored. */
  verifyFile(data: Buffer): Promise<VerifyResponse['data']>;
  upload(files: { name: string; data: Buffer }[]): Promise<UploadedFile[]>;
  /** The generation models (GET /models): prices, capabilities, declared parameters, which one is the default. */
  models(): Promise<ListModelsResponse['data']>;
  /** The video models (GET /video/models), as models() lists the image ones. */
  videoModels(): Promise<ListVideoModelsResponse['data']>;
  /** The full task with an API key; with a PAT, its result view (the routes a PAT may read). */
  task(id: string): Promise<TaskView>;
  status(id: string): Promise<TaskStatus>;
  /** Cancels a pending task (POST /tasks/{id}/cancel, owner's API key): the task as it settled. */
  cancel(id: string): Promise<Task>;
  /** Deletes a task's data (DELETE /tasks/{id}; a pending one is cancelled first): the task as it is kept. */
  deleteTask(id: string): Promise<Task>;
  tasks(query?: Record<string, string | number | undefined>): Promise<{ tasks: Task[]; nextCursor: string | null }>;
  /**
   * Follows a task until it settles: over its live status stream (GET /tasks/{id}/events), or,
   * when the server has no such route or the stream fails, by polling with backoff (250 ms
   * doubling to 5 s). Either way the answer is the settled task, read as `task()` reads it.
   * `onProgress` hears each state's progress the stream sends, `onPreview` each running item's
   * live preview (polling has neither to tell).
   */
  watch(id: string, options?: WatchOptions): Promise<TaskView>;
  /**
   * The account's webhook events as they happen (GET /webhook/events; `key` an access token
   * with `manage`), of the kinds `events` names (comma-separated; default all): `ready` once
   * the stream is open, then each event, until the server ends the stream. An error answer
   * throws its ApiError; a connection lost throws.
   */
  webhookEvents(events?: string): AsyncGenerator<WebhookStreamEvent>;
  download(url: string): Promise<Buffer>;
}

/** How many times a creating POST is sent at most, and the pause before a resend (× the attempt). */
const CREATE_ATTEMPTS = 3;
const RETRY_DELAY_MS = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A transport failure after which a request carrying an idempotency key may be sent again. */
class Retryable extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
  }
}

interface Answer<T> {
  status: number;
  body: T;
}

/**
 * A typed client of the imgtask HTTP API. `key` is an API key, an access token or a PAT; with a
 * PAT only a task's status and result can be read, and `task()` uses those routes.
 * `unreachableHint` ends the UNREACHABLE error: how the URL was chosen, where else to look.
 */
export function createClient(options: {
  url: string;
  key?: string;
  fetch?: typeof fetch;
  unreachableHint?: string;
}): Client {
  const base = options.url.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const auth = (): Record<string, string> => (options.key ? { authorization: `Bearer ${options.key}` } : {});

  /** One request; a non-2xx answer becomes an ApiError carrying the API's code. */
  async function call<T>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
    const res = await send(method, path, body);
    return answerOf<T>(res);
  }

  /**
   * A creating POST, safe to send again: it carries an Idempotency-Key (one per call), so when the
   * connection breaks after the server took the request (no answer came) or another process still
   * holds the key, the same request is sent again and the server answers the first task, never a
   * second one. A refused connection is not retried: the request never arrived.
   */
  async function create<T>(path: string, body: unknown, options: CreateOptions = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = { 'idempotency-key': `cli-${globalThis.crypto.randomUUID()}` };
    if (options.cancelAfter !== undefined) headers['cancel-after'] = options.cancelAfter;
    for (let attempt = 1; ; attempt++) {
      const last = attempt === CREATE_ATTEMPTS;
      let res: Response;
      try {
        res = await send('POST', path, body, headers, !last);
      } catch (err) {
        if (last || !(err instanceof Retryable)) throw err instanceof Retryable ? err.error : err;
        await sleep(RETRY_DELAY_MS * attempt);
        continue;
      }
      if (!last && res.status === 409 && res.headers.has('retry-after')) {
        await res.body?.cancel();
        await sleep(Math.min(5, Number(res.headers.get('retry-after')) || 1) * 1000);
        continue;
      }
      return answerOf<T>(res);
    }
  }

  async function send(
    method: string,
    path: string,
    body: unknown,
    extraHeaders: Record<string, string> = {},
    retryable = false,
  ): Promise<Response> {
    try {
      return await doFetch(`${base}${path}`, {
        method,
        // FormData (uploads) and a Blob (a file to verify) go as they are; anything else as JSON.
        headers: {
          ...auth(),
          ...extraHeaders,
          ...(body instanceof FormData || body instanceof Blob || body === undefined
            ? {}
            : { 'content-type': 'application/json' }),
        },
        body:
          body === undefined
            ? undefined
            : body instanceof FormData || body instanceof Blob
              ? body
              : JSON.stringify(body),
      });
    } catch (err) {
      const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? (err as Error).message;
      const error = new ApiError(
        0,
        'UNREACHABLE',
        `cannot reach ${base} (${reason}): is \`imgtask serve\` running at ${base}? ${options.unreachableHint ?? '(--url or IMGTASK_URL names the server)'}`,
      );
      if (retryable && cause?.code !== 'ECONNREFUSED' && cause?.code !== 'ENOTFOUND') throw new Retryable(error);
      throw error;
    }
  }

  async function answerOf<T>(res: Response): Promise<Answer<T>> {
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const error = (json ?? {}) as {
        success?: boolean;
        errors?: Issue[];
        error?: Issue[];
        code?: string;
        message?: string;
      };
      if (error.success === false) {
        const issues = error.errors ?? error.error ?? [];
        throw new ApiError(
          res.status,
          'SCHEMA_REJECTED',
          issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
          json,
        );
      }
      throw new ApiError(
        res.status,
        error.code ?? `HTTP_${res.status}`,
        error.message ?? error.code ?? text.slice(0, 200),
        json,
      );
    }
    return { status: res.status, body: json as T };
  }

  const isPat = () => options.key?.startsWith('pat_') ?? false;
  const status = async (id: string): Promise<TaskStatus> =>
    (await call<GetTaskStatusResponse>('GET', `/tasks/${id}/status`)).body.data.status;
  /** The full task with an API key; with a PAT, its result view (the routes a PAT may read). */
  const task = async (id: string): Promise<TaskView> =>
    isPat()
      ? (await call<GetTaskResultResponse>('GET', `/tasks/${id}/result`)).body.data
      : (await call<GetTaskResponse>('GET', `/tasks/${id}`)).body.data;

  return {
    base,
    generate: async (body: GenerateInput, options?: CreateOptions) =>
      (await create<GenerateResponse>('/image/generate', body, options)).body.data,
    removeBackground: async (body: RemoveBackgroundInput, options?: CreateOptions) =>
      (await create<RemoveBackgroundResponse>('/image/remove-background', body, options)).body.data,
    video: async (body: VideoInput, options?: CreateOptions) =>
      (await create<GenerateVideoResponse>('/video/generate', body, options)).body.data,
    rate: async (body: RateInput, options?: CreateOptions): Promise<SyncAnswer<RateResponse['data']>> => {
      const answer = await create<RateResponse>('/image/rate', body, options);
      return { status: answer.status, data: answer.body.data };
    },
    alt: async (body: AltInput, options?: CreateOptions): Promise<SyncAnswer<AltResponse['data']>> => {
      const answer = await create<AltResponse>('/image/alt', body, options);
      return { status: answer.status, data: answer.body.data };
    },
    review: async (body: ReviewInput, options?: CreateOptions): Promise<SyncAnswer<ReviewResponse['data']>> => {
      const answer = await create<ReviewResponse>('/image/review', body, options);
      return { status: answer.status, data: answer.body.data };
    },
    verify: async (body: VerifyBody): Promise<VerifyResponse['data']> =>
      (await call<VerifyResponse>('POST', '/image/verify', body)).body.data,
    verifyFile: async (data: Buffer): Promise<VerifyResponse['data']> =>
      (
        await call<VerifyResponse>(
          'POST',
          '/image/verify/file',
          new Blob([new Uint8Array(data)], { type: 'application/octet-stream' }),
        )
      ).body.data,
    async upload(files: { name: string; data: Buffer }[]): Promise<UploadedFile[]> {
      const form = new FormData();
      for (const file of files) form.append('files', new Blob([new Uint8Array(file.data)]), basename(file.name));
      return (await create<UploadResponse>('/image/upload', form)).body.data.files;
    },
    models: async (): Promise<ListModelsResponse['data']> =>
      (await call<ListModelsResponse>('GET', '/models')).body.data,
    videoModels: async (): Promise<ListVideoModelsResponse['data']> =>
      (await call<ListVideoModelsResponse>('GET', '/video/models')).body.data,
    task,
    status,
    cancel: async (id: string): Promise<Task> =>
      (await call<CancelTaskResponse>('POST', `/tasks/${encodeURIComponent(id)}/cancel`)).body.data,
    deleteTask: async (id: string): Promise<Task> =>
      (await call<DeleteTaskResponse>('DELETE', `/tasks/${encodeURIComponent(id)}`)).body.data,
    async tasks(
      query: Record<string, string | number | undefined> = {},
    ): Promise<{ tasks: Task[]; nextCursor: string | null }> {
      const params = new URLSearchParams(
        Object.entries(query).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]])),
      );
      const { body } = await call<ListTasksResponse>('GET', `/tasks${params.size ? `?${params}` : ''}`);
      return { tasks: body.data, nextCursor: body.nextCursor };
    },
    async watch(id: string, options: WatchOptions = {}): Promise<TaskView> {
      const { onPoll, onProgress, onPreview, timeoutMs = 24 * 3600 * 1000 } = options;
      const started = Date.now();
      const onStatus = onPoll && ((status: string) => onPoll(status as TaskStatus));
      if (
        await followTaskEvents({
          url: `${base}/tasks/${encodeURIComponent(id)}/events`,
          headers: auth(),
          fetch: doFetch,
          timeoutMs,
          onStatus,
          onProgress,
          onPreview,
        })
      )
        return task(id);
      for (let wait = 250; ; wait = Math.min(5000, wait * 2)) {
        const now = await status(id);
        onPoll?.(now);
        if (now !== 'pending') return task(id);
        if (Date.now() - started > timeoutMs) throw new ApiError(0, 'WATCH_TIMEOUT', `task ${id} is still pending`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    },
    async *webhookEvents(events?: string): AsyncGenerator<WebhookStreamEvent> {
      const res = await send(
        'GET',
        `/webhook/events${events ? `?events=${encodeURIComponent(events)}` : ''}`,
        undefined,
        { accept: 'text/event-stream' },
      );
      if (!res.ok) await answerOf(res);
      if (!res.body) throw new ApiError(res.status, `HTTP_${res.status}`, 'GET /webhook/events answered no stream');
      yield* webhookStreamEvents(res.body);
    },
    async download(url: string): Promise<Buffer> {
      const res = await doFetch(url);
      if (!res.ok) throw new ApiError(res.status, `HTTP_${res.status}`, `cannot download ${url}`);
      return Buffer.from(await res.arrayBuffer());
    },
  };
}

interface Issue {
  path: (string | number)[];
  message: string;
}

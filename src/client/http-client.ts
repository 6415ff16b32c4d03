import { basename } from 'node:path';
import type { z } from 'zod';
import type { AltBody, AltResponse } from '../api/routes/image/alt.js';
import type { GenerateResponse, generateBody } from '../api/routes/image/generate.js';
import type { RateBody, RateResponse } from '../api/routes/image/rate.js';
import type { RemoveBackgroundBody, RemoveBackgroundResponse } from '../api/routes/image/remove-background.js';
import type { ReviewBody, ReviewResponse } from '../api/routes/image/review.js';
import type { UploadResponse } from '../api/routes/image/upload.js';
import type { CancelTaskResponse } from '../api/routes/tasks/cancel.js';
import type { GetTaskResponse } from '../api/routes/tasks/get.js';
import type { ListTasksResponse } from '../api/routes/tasks/list.js';
import type { GetTaskResultResponse } from '../api/routes/tasks/result.js';
import type { GetTaskStatusResponse } from '../api/routes/tasks/status.js';
import type { GenerateVideoResponse, generateVideoBody } from '../api/routes/video/generate.js';
import { followTaskEvents } from './task-events.js';

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
export type UploadedFile = UploadResponse['data']['files'][number];

/** A task as a credential can read it: the full task with an API key, its result view with a PAT. */
export type TaskView = Task | TaskResult;

/** Answers of rate and alt: 200 with the results, or 202 with the task to poll. */
export interface SyncAnswer<Data> {
  status: number;
  data: Data;
}

interface Answer<T> {
  status: number;
  body: T;
}

/**
 * A typed client of the imgtask HTTP API. `key` is an API key, an access token or a PAT; with a
 * PAT only a task's status and result can be read, and `task()` uses those routes.
 */
export function createClient(options: { url: string; key?: string; fetch?: typeof fetch }) {
  const base = options.url.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const auth = (): Record<string, string> => (options.key ? { authorization: `Bearer ${options.key}` } : {});

  /** One request; a non-2xx answer becomes an ApiError carrying the API's code. */
  async function call<T>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, {
        method,
        headers: { ...auth(), ...(body instanceof FormData || body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
      });
    } catch (err) {
      const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? (err as Error).message;
      throw new ApiError(0, 'UNREACHABLE', `cannot reach ${base} (${reason}): is \`imgtask serve\` running at ${base}? (--url or IMGTASK_URL names the server)`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const error = (json ?? {}) as { success?: boolean; errors?: Issue[]; error?: Issue[]; code?: string; message?: string };
      if (error.success === false) {
        const issues = error.errors ?? error.error ?? [];
        throw new ApiError(res.status, 'SCHEMA_REJECTED', issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '), json);
      }
      throw new ApiError(res.status, error.code ?? `HTTP_${res.status}`, error.message ?? error.code ?? text.slice(0, 200), json);
    }
    return { status: res.status, body: json as T };
  }

  const isPat = () => options.key?.startsWith('pat_') ?? false;
  const status = async (id: string): Promise<TaskStatus> => (await call<GetTaskStatusResponse>('GET', `/tasks/${id}/status`)).body.data.status;
  /** The full task with an API key; with a PAT, its result view (the routes a PAT may read). */
  const task = async (id: string): Promise<TaskView> =>
    isPat() ? (await call<GetTaskResultResponse>('GET', `/tasks/${id}/result`)).body.data : (await call<GetTaskResponse>('GET', `/tasks/${id}`)).body.data;

  return {
    base,
    generate: async (body: GenerateInput) => (await call<GenerateResponse>('POST', '/image/generate', body)).body.data,
    removeBackground: async (body: RemoveBackgroundInput) => (await call<RemoveBackgroundResponse>('POST', '/image/remove-background', body)).body.data,
    video: async (body: VideoInput) => (await call<GenerateVideoResponse>('POST', '/video/generate', body)).body.data,
    rate: async (body: RateInput): Promise<SyncAnswer<RateResponse['data']>> => {
      const answer = await call<RateResponse>('POST', '/image/rate', body);
      return { status: answer.status, data: answer.body.data };
    },
    alt: async (body: AltInput): Promise<SyncAnswer<AltResponse['data']>> => {
      const answer = await call<AltResponse>('POST', '/image/alt', body);
      return { status: answer.status, data: answer.body.data };
    },
    review: async (body: ReviewInput): Promise<SyncAnswer<ReviewResponse['data']>> => {
      const answer = await call<ReviewResponse>('POST', '/image/review', body);
      return { status: answer.status, data: answer.body.data };
    },
    async upload(files: { name: string; data: Buffer }[]): Promise<UploadedFile[]> {
      const form = new FormData();
      for (const file of files) form.append('files', new Blob([new Uint8Array(file.data)]), basename(file.name));
      return (await call<UploadResponse>('POST', '/image/upload', form)).body.data.files;
    },
    task,
    status,
    /** Cancels a pending task (POST /tasks/{id}/cancel, owner's API key): the task as it settled. */
    cancel: async (id: string): Promise<Task> => (await call<CancelTaskResponse>('POST', `/tasks/${encodeURIComponent(id)}/cancel`)).body.data,
    async tasks(query: Record<string, string | number | undefined> = {}): Promise<{ tasks: Task[]; nextCursor: string | null }> {
      const params = new URLSearchParams(Object.entries(query).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]])));
      const { body } = await call<ListTasksResponse>('GET', `/tasks${params.size ? `?${params}` : ''}`);
      return { tasks: body.data, nextCursor: body.nextCursor };
    },
    /**
     * Follows a task until it settles: over its live status stream (GET /tasks/{id}/events), or,
     * when the server has no such route or the stream fails, by polling with backoff (250 ms
     * doubling to 5 s). Either way the answer is the settled task, read as `task()` reads it.
     */
    async watch(id: string, onPoll?: (status: TaskStatus) => void, timeoutMs = 24 * 3600 * 1000): Promise<TaskView> {
      const started = Date.now();
      const onStatus = onPoll && ((status: string) => onPoll(status as TaskStatus));
      if (await followTaskEvents({ url: `${base}/tasks/${encodeURIComponent(id)}/events`, headers: auth(), fetch: doFetch, timeoutMs, onStatus })) return task(id);
      for (let wait = 250; ; wait = Math.min(5000, wait * 2)) {
        const now = await status(id);
        onPoll?.(now);
        if (now !== 'pending') return task(id);
        if (Date.now() - started > timeoutMs) throw new ApiError(0, 'WATCH_TIMEOUT', `task ${id} is still pending`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
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

export type Client = ReturnType<typeof createClient>;

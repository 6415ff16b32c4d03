import { basename } from 'node:path';

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

export interface TaskView {
  id: string;
  status: 'pending' | 'completed' | 'failed';
  type: string;
  cost?: string;
  result: any;
  errors?: { code: string; message?: string }[];
  metadata?: unknown;
  createdAt?: string;
}

export interface UploadedFile {
  id: string;
  url: string;
  service_url: string;
  format: string;
  size: string;
  bytes: number;
  filename: string;
}

/**
 * A typed client of the imgtask HTTP API. `key` is an API key, an access token or a PAT; with a
 * PAT only a task's status and result can be read, and `task()` uses those routes.
 */
export function createClient(options: { url: string; key?: string; fetch?: typeof fetch }) {
  const base = options.url.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const auth = (): Record<string, string> => (options.key ? { authorization: `Bearer ${options.key}` } : {});

  async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; data: T; json: any }> {
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, {
        method,
        headers: { ...auth(), ...(body instanceof FormData || body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
      });
    } catch (err) {
      throw new ApiError(0, 'UNREACHABLE', `cannot reach ${base}: ${(err as Error & { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`);
    }
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      if (json?.success === false) {
        const issues = (json.errors ?? json.error ?? []) as { path: (string | number)[]; message: string }[];
        throw new ApiError(res.status, 'SCHEMA_REJECTED', issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '), json);
      }
      throw new ApiError(res.status, json?.code ?? `HTTP_${res.status}`, json?.message ?? json?.code ?? text.slice(0, 200), json);
    }
    return { status: res.status, data: json?.data as T, json };
  }

  const isPat = () => options.key?.startsWith('pat_') ?? false;

  return {
    base,
    generate: (body: Record<string, unknown>) => call<{ taskId: string; access?: { publicAccessToken: string } }>('POST', '/image/generate', body).then((r) => r.data),
    removeBackground: (body: Record<string, unknown>) => call<{ taskId: string; estimatedCost: string; access?: { publicAccessToken: string } }>('POST', '/image/remove-background', body).then((r) => r.data),
    rate: (body: Record<string, unknown>) => call<{ task: { id: string; status: string; cost?: string }; results?: unknown[] }>('POST', '/image/rate', body),
    alt: (body: Record<string, unknown>) => call<{ task: { id: string; status: string; cost?: string }; results?: unknown[] }>('POST', '/image/alt', body),
    async upload(files: { name: string; data: Buffer }[]): Promise<UploadedFile[]> {
      const form = new FormData();
      for (const file of files) form.append('files', new Blob([new Uint8Array(file.data)]), basename(file.name));
      return (await call<{ files: UploadedFile[] }>('POST', '/image/upload', form)).data.files;
    },
    /** The full task with an API key; with a PAT, status and result (the routes a PAT may read). */
    async task(id: string): Promise<TaskView> {
      if (!isPat()) return (await call<TaskView>('GET', `/tasks/${id}`)).data;
      const { data } = await call<{ id: string; status: TaskView['status']; type: string; result: unknown }>('GET', `/tasks/${id}/result`);
      return { ...data, errors: undefined };
    },
    status: async (id: string) => (await call<{ status: TaskView['status'] }>('GET', `/tasks/${id}/status`)).data.status,
    async tasks(query: Record<string, string | number | undefined> = {}): Promise<{ tasks: TaskView[]; nextCursor: string | null }> {
      const params = new URLSearchParams(Object.entries(query).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]])));
      const { data, json } = await call<TaskView[]>('GET', `/tasks${params.size ? `?${params}` : ''}`);
      return { tasks: data, nextCursor: json.nextCursor ?? null };
    },
    /** Follows a task until it settles: polls with backoff (250 ms doubling to 5 s). */
    async watch(id: string, onPoll?: (status: TaskView['status']) => void, timeoutMs = 24 * 3600 * 1000): Promise<TaskView> {
      const started = Date.now();
      for (let wait = 250; ; wait = Math.min(5000, wait * 2)) {
        const status = await this.status(id);
        onPoll?.(status);
        if (status !== 'pending') return this.task(id);
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

export type Client = ReturnType<typeof createClient>;

/**
 * HTTP to operator-configured endpoints (provider base URLs, often on the operator's own
 * network, so no address guard), with a deadline, the caller's abort signal, and a size cap.
 * Images a provider answers with by URL are fetched through the SSRF-guarded fetcher instead.
 */
export interface ProviderHttpResponse {
  status: number;
  body: Buffer;
  text(): string;
  json(): unknown;
}

export class ProviderHttpError extends Error {
  constructor(
    readonly kind: 'timeout' | 'transport' | 'too_large',
    message: string,
  ) {
    super(message);
    this.name = 'ProviderHttpError';
  }
}

/**
 * A request to a provider: its method, headers and body, its deadline, the caller's signal, and the most bytes read
 * back.
 */
interface ProviderRequestInit {
  method: 'GET' | 'POST' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | FormData;
  timeoutMs: number;
  signal?: AbortSignal;
  maxBytes?: number;
}

export async function providerRequest(url: string, init: ProviderRequestInit): Promise<ProviderHttpResponse> {
  // One controller for the deadline and the caller's signal, both unhooked when the request is
  // done (AbortSignal.any would leave a listener on the caller's long-lived signal until GC).
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, init.timeoutMs);
  const abortFromCaller = () => controller.abort();
  init.signal?.addEventListener('abort', abortFromCaller, { once: true });
  try {
    return await request(url, init, controller.signal, () => timedOut);
  } finally {
    clearTimeout(timer);
    init.signal?.removeEventListener('abort', abortFromCaller);
  }
}

async function request(
  url: string,
  init: Omit<ProviderRequestInit, 'signal'>,
  signal: AbortSignal,
  timedOut: () => boolean,
): Promise<ProviderHttpResponse> {
  let res: Response;
  try {
    res = await fetch(url, { method: init.method, headers: init.headers, body: init.body, signal, redirect: 'error' });
  } catch (err) {
    if (timedOut()) throw new ProviderHttpError('timeout', `no answer within ${init.timeoutMs} ms`);
    throw new ProviderHttpError(
      'transport',
      `cannot reach the provider: ${(err as Error & { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`,
    );
  }
  const max = init.maxBytes ?? 64 * 1024 * 1024;
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of res.body ?? []) {
      total += chunk.byteLength;
      if (total > max) throw new ProviderHttpError('too_large', `the answer is larger than ${max} bytes`);
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ProviderHttpError) throw err;
    if (timedOut()) throw new ProviderHttpError('timeout', `the answer did not finish within ${init.timeoutMs} ms`);
    throw new ProviderHttpError('transport', 'the answer was cut off');
  }
  const body = Buffer.concat(chunks);
  return {
    status: res.status,
    body,
    text: () => body.toString('utf8'),
    json: () => JSON.parse(body.toString('utf8')) as unknown,
  };
}

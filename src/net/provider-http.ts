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

export async function providerRequest(
  url: string,
  init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string | FormData; timeoutMs: number; signal?: AbortSignal; maxBytes?: number },
): Promise<ProviderHttpResponse> {
  const deadline = AbortSignal.timeout(init.timeoutMs);
  const signal = init.signal ? AbortSignal.any([deadline, init.signal]) : deadline;
  let res: Response;
  try {
    res = await fetch(url, { method: init.method, headers: init.headers, body: init.body, signal, redirect: 'error' });
  } catch (err) {
    if (deadline.aborted) throw new ProviderHttpError('timeout', `no answer within ${init.timeoutMs} ms`);
    throw new ProviderHttpError('transport', `cannot reach the provider: ${(err as Error & { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`);
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
    if (deadline.aborted) throw new ProviderHttpError('timeout', `the answer did not finish within ${init.timeoutMs} ms`);
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

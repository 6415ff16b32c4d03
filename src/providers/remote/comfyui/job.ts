import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import type { WorkflowGraph } from '../../../domain/comfy-workflows.js';
import type { LivePreview } from '../../../domain/media-types.js';
import { ProviderError } from '../../../domain/task-status.js';
import type { ComfyHttp, ComfyServer, HistoryEntry } from './comfy-http.js';
import { createJobProgress } from './comfy-progress.js';
import { describeExecutionError, type ExecutionFailure } from './execution-error.js';
import { JobForgotten, ServerUnreachable } from './failures.js';
import { relayPreviews } from './previews.js';

export interface JobOptions {
  server: ComfyServer;
  http: ComfyHttp;
  graph: WorkflowGraph;
  signal: AbortSignal;
  /** The whole job: queued, run and its history read. */
  timeoutMs: number;
  /** How often /history is polled once the socket has dropped (or never opened). */
  pollIntervalMs: number;
  onProgress?: (fraction: number) => void;
  /** This job's preview frames, decoded (previews.ts); absent: none are asked for. */
  onPreview?: (preview: LivePreview) => void;
}

/** How long the socket may take to open before the job is followed by polling instead. */
const SOCKET_OPEN_MS = 5000;
/** After execution_success, how long to wait for the `executing` of node null that follows the history write. */
const SUCCESS_GRACE_MS = 250;
/** Polls of /history that may fail in a row (the server went away) before the job is given up. */
const POLL_FAILURES = 3;

interface Message {
  type: string;
  data: Record<string, unknown> & { prompt_id?: string };
}

/**
 * Runs one workflow on one ComfyUI server and answers its history entry (its outputs) once it
 * succeeded. The socket (`/ws?clientId=`) is opened before the prompt is queued, so no message
 * of the job is missed; messages are matched by prompt id. A socket that drops (or never opens)
 * leaves the job to be followed by polling `/history`. An abort (cancel, stop, the deadline)
 * takes the job off the server: removed from the queue, or interrupted if it runs.
 */
export async function runJob(options: JobOptions): Promise<HistoryEntry> {
  const { server, http, signal } = options;
  // The deadline, cleared when the job ends (an AbortSignal.timeout would live on for its whole span).
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('deadline')), options.timeoutMs);
  const jobSignal = AbortSignal.any([signal, deadline.signal]);
  // One rejection per job, handled here, raced wherever the job waits.
  const abortedJob = aborted(jobSignal);
  abortedJob.catch(() => {});
  const clientId = randomUUID();
  const progress = createJobProgress(options.graph, options.onProgress);
  let socket: WebSocket | undefined;
  let promptId: string | undefined;
  let queued: Promise<string> | undefined;
  try {
    socket = await openSocket(server, clientId, jobSignal);
    jobSignal.throwIfAborted();
    const ended = socket ? followSocket(socket, () => promptId, progress) : undefined;
    if (socket && options.onPreview) relayPreviews(socket, () => promptId, options.onPreview);
    // Not cut short by a cancel: a prompt the server took must be known to be taken off it again.
    queued = http.queuePrompt(options.graph, clientId, deadline.signal);
    // Known before the prompt is queued: messages that arrive first are kept until its id is.
    promptId = await Promise.race([queued, abortedJob]);
    ended?.flush();
    const id = promptId;
    const outcome = await Promise.race([
      ended
        ? ended.result.then((result) => result ?? pollUntilEnded(http, server, id, options.pollIntervalMs, jobSignal))
        : pollUntilEnded(http, server, id, options.pollIntervalMs, jobSignal),
      abortedJob,
    ]);
    if (outcome.kind === 'error')
      throw new ProviderError('PROVIDER_ERROR', `${server.name}: the workflow failed: ${outcome.failure.message}`, {
        providerResponse: outcome.failure.raw,
        retryable: outcome.failure.retryable,
      });
    if (outcome.kind === 'interrupted')
      throw new ProviderError('PROVIDER_ERROR', `${server.name}: the job was interrupted on the server`);
    const entry = await Promise.race([historyOnceWritten(http, id, options.pollIntervalMs, jobSignal), abortedJob]);
    progress.done();
    return entry;
  } catch (err) {
    if (queued && jobSignal.aborted) {
      // Off the server, in the background (once it answered with the id): the item is done with either way.
      queued.then((id) => http.cancel(id)).catch(() => {});
    }
    if (deadline.signal.aborted && !signal.aborted)
      throw new ProviderError('TIMEOUT', `${server.name}: the job took longer than ${options.timeoutMs} ms`);
    throw err;
  } finally {
    clearTimeout(timer);
    socket?.terminate();
  }
}

type Outcome = { kind: 'success' } | { kind: 'error'; failure: ExecutionFailure } | { kind: 'interrupted' };

/** Rejects with the signal's reason once it aborts. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

/** The socket, open; undefined when it cannot be opened (the job is then followed by polling). */
function openSocket(server: ComfyServer, clientId: string, signal: AbortSignal): Promise<WebSocket | undefined> {
  const url = `${server.baseUrl.replace(/^http/, 'ws')}/ws?clientId=${clientId}`;
  return new Promise((resolve) => {
    let socket: WebSocket;
    try {
      socket = new WebSocket(url, { headers: server.headers, handshakeTimeout: SOCKET_OPEN_MS });
    } catch {
      // A URL or header the client refuses: follow the job by polling instead.
      resolve(undefined);
      return;
    }
    // Kept for the socket's whole life: an error after the job stopped listening (terminate()
    // while connecting emits one on the next tick) must not become an uncaught exception.
    socket.on('error', () => give(undefined));
    const give = (value: WebSocket | undefined) => {
      socket.off('open', opened);
      signal.removeEventListener('abort', failed);
      if (value === undefined) socket.terminate();
      resolve(value);
    };
    const opened = () => give(socket);
    const failed = () => give(undefined);
    socket.on('open', opened);
    signal.addEventListener('abort', failed, { once: true });
  });
}

/**
 * Follows the job's messages on the socket. `result` resolves with the outcome, or with
 * undefined when the socket closed first (then the caller polls). Messages before the prompt id
 * is known are kept and matched on `flush`.
 */
function followSocket(
  socket: WebSocket,
  promptIdOf: () => string | undefined,
  progress: ReturnType<typeof createJobProgress>,
) {
  const early: Message[] = [];
  let succeeded: NodeJS.Timeout | undefined;
  let resolveResult: (outcome: Outcome | undefined) => void = () => {};
  const result = new Promise<Outcome | undefined>((resolve) => (resolveResult = resolve));
  const settle = (outcome: Outcome | undefined) => {
    clearTimeout(succeeded);
    // A socket closing after the job succeeded does not make it a dropped job.
    resolveResult(outcome === undefined && succeeded ? { kind: 'success' } : outcome);
  };
  const handle = (message: Message) => {
    const id = promptIdOf();
    if (id === undefined) {
      early.push(message);
      return;
    }
    if (message.data?.prompt_id !== id) return;
    switch (message.type) {
      case 'execution_cached':
        progress.cached(Array.isArray(message.data.nodes) ? (message.data.nodes as string[]) : []);
        break;
      case 'executing':
        // Older servers end a job with `executing` of node null instead of execution_success.
        if (message.data.node === null) settle({ kind: 'success' });
        else progress.executing(String(message.data.node));
        break;
      case 'progress':
        progress.step(Number(message.data.value), Number(message.data.max));
        break;
      case 'executed':
        progress.executed(String(message.data.node));
        break;
      case 'execution_success':
        // ComfyUI writes the history just after this, then sends `executing` of node null: wait
        // for that (a read now would often come too early), a moment at most.
        succeeded ??= setTimeout(() => settle({ kind: 'success' }), SUCCESS_GRACE_MS);
        break;
      case 'execution_error':
        settle({ kind: 'error', failure: describeExecutionError(message.data) });
        break;
      case 'execution_interrupted':
        settle({ kind: 'interrupted' });
        break;
    }
  };
  socket.on('message', (raw, isBinary) => {
    // Binary frames are previews of the image being made: relayPreviews reads them.
    if (isBinary) return;
    try {
      handle(JSON.parse(raw.toString()) as Message);
    } catch {}
  });
  socket.on('close', () => settle(undefined));
  socket.on('error', () => settle(undefined));
  return {
    result,
    flush() {
      for (const message of early.splice(0)) handle(message);
    },
  };
}

/** The outcome read from a history entry's status (undefined while the job has not ended). */
function outcomeOf(entry: HistoryEntry | undefined): Outcome | undefined {
  if (!entry) return undefined;
  const status = entry.status;
  if (status?.status_str === 'error') {
    const error = status.messages?.find(([type]) => type === 'execution_error');
    if (error) return { kind: 'error', failure: describeExecutionError(error[1]) };
    if (status.messages?.some(([type]) => type === 'execution_interrupted')) return { kind: 'interrupted' };
    return {
      kind: 'error',
      failure: { message: 'the job ended in error', raw: 'the job ended in error', retryable: true },
    };
  }
  return { kind: 'success' };
}

/**
 * Polls /history until the job has ended. A server that stops answering fails PROVIDER_ERROR
 * (retried: on the next provider, or on this one once it is back); one that answers but no
 * longer knows the job (a restart empties ComfyUI's queue and history) fails JobForgotten, and
 * the job is queued again (outage.ts rerunWhenForgotten).
 */
async function pollUntilEnded(
  http: ComfyHttp,
  server: ComfyServer,
  promptId: string,
  intervalMs: number,
  signal: AbortSignal,
): Promise<Outcome> {
  let failures = 0;
  for (;;) {
    let lost = false;
    try {
      const outcome = outcomeOf(await http.history(promptId, signal));
      if (outcome) return outcome;
      // Neither ended nor queued: read the history once more, in case it ended between the two reads.
      if (!(await http.holds(promptId, signal))) {
        const late = outcomeOf(await http.history(promptId, signal));
        if (late) return late;
        lost = true;
      }
      failures = 0;
    } catch (err) {
      if (signal.aborted) throw err;
      failures += 1;
      if (failures >= POLL_FAILURES) {
        // Unreachable: the server is down (the next attempt waits for it, or goes to another server).
        if (err instanceof ServerUnreachable)
          throw new ServerUnreachable(`${server.name} went away in the middle of the job (${err.reason})`, err.reason);
        throw new ProviderError(
          'PROVIDER_ERROR',
          `${server.name} went away in the middle of the job: ${(err as Error).message}`,
        );
      }
    }
    if (lost) throw new JobForgotten(server.name);
    await sleep(intervalMs, undefined, { signal });
  }
}

/** The job's history entry: ComfyUI writes it just after it announces the end, so a read may come a moment early. */
async function historyOnceWritten(
  http: ComfyHttp,
  promptId: string,
  intervalMs: number,
  signal: AbortSignal,
): Promise<HistoryEntry> {
  let wait = 10;
  for (;;) {
    const entry = await http.history(promptId, signal);
    if (entry) return entry;
    if (!(await http.holds(promptId, signal)) && !(await http.history(promptId, signal)))
      throw new ProviderError('PROVIDER_ERROR', 'the server announced the end of the job but keeps no history of it');
    await sleep(wait, undefined, { signal });
    wait = Math.min(wait * 2, intervalMs);
  }
}

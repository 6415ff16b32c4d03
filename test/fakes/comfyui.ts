// A faithful fake ComfyUI for tests, over real HTTP and WebSocket on 127.0.0.1: the routes of
// server.py (/prompt, /queue, /interrupt, /history, /upload/image, /view, /system_stats,
// /object_info, /ws), its validation (execution.validate_prompt: 400 with error + node_errors), one
// executor running queued prompts in turn and sending what ComfyUI sends (status, execution_start,
// execution_cached, executing, progress, progress_state, preview frames, executed,
// execution_success | execution_error | execution_interrupted, then executing with node null),
// and a history with each output node's files, readable through /view. Written from ComfyUI's
// server.py, main.py, execution.py and nodes.py; the node catalogue is in comfyui/catalogue.ts.
//
// It follows ComfyUI 0.3.64 (October 2025): the feature_flags handshake (a client announcing
// supports_preview_metadata gets event-4 preview frames, any other the older event-1 ones),
// progress_state broadcasts, /interrupt with a prompt_id stopping only that prompt when it runs,
// 413 past --max-upload-size, `executing` with node null after each job. A test that runs the
// provider against a real server of that version is test/providers/comfyui-real.test.ts.
//
// Like ComfyUI it caches: a prompt whose nodes did not change since the last one is not run again
// (no progress; its output node shows its earlier files). Change the seed, or pass cache: false.
//
// Test controls: every request is recorded (method, path, headers, JSON body or form), and every
// WebSocket message; failNext, dropSocketsDuringNextJob, dieDuringNextJob, holdJobs / releaseJobs
// and refuse change what the server does; interrupts and queue() show what it received.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import sharp from 'sharp';
import { DEFAULT_CHECKPOINTS, nodeCatalogue } from './comfyui/catalogue.js';
import { Executor, type FailureKind } from './comfyui/executor.js';
import type { Answer, Multipart } from './comfyui/files.js';
import { Folders, type FolderType, inside } from './comfyui/folders.js';
import { type HistoryEntry, PromptQueue } from './comfyui/queue.js';
import { type InterruptRecord, type RouteContext, route, routePath } from './comfyui/routes.js';
import { type SentMessage, Sockets, serverFeatures } from './comfyui/sockets.js';

export { fakeImageColour } from './comfyui/images.js';
export { animatedWebpWorkflow, img2imgWorkflow, txt2imgWorkflow } from './comfyui/workflows.js';

export interface FakeComfyUiOptions {
  /** Milliseconds between execution_success and the history write (ComfyUI writes it a moment after). @default 0 */
  historyDelayMs?: number;
  /** Milliseconds each sampler step takes. @default 0 */
  stepDelayMs?: number;
  /**
   * The most steps a KSampler runs (and `progress` messages it sends): its `steps` input, capped at this. @default 3
   */
  maxSteps?: number;
  /** The checkpoint files CheckpointLoaderSimple's `ckpt_name` may name. @default DEFAULT_CHECKPOINTS */
  checkpoints?: string[];
  /** Binary preview frames with each sampler step. @default true */
  previews?: boolean;
  /**
   * Reuse the outputs of nodes whose inputs did not change since the previous prompt, as ComfyUI does. @default true
   */
  cache?: boolean;
  /** --max-upload-size, in MB: an upload whose body is larger is answered 413. @default 100 */
  maxUploadSizeMb?: number;
}

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body read as JSON, when it was JSON. */
  json?: unknown;
  /** A multipart body: its fields, and its files' names and sizes. */
  form?: { fields: Record<string, string>; files: { field: string; filename: string; bytes: number }[] };
}

export interface FakeComfyUi {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Every WebSocket message sent (or addressed to a client not connected), in order. */
  messages: SentMessage[];
  interrupts: InterruptRecord[];
  /** The prompt ids running and pending. */
  queue(): { running: string | null; pending: string[] };
  history(promptId: string): HistoryEntry | undefined;
  /** A file of the output, input or temp folder. */
  file(type: FolderType, subfolder: string, filename: string): Buffer | undefined;
  /** WebSocket connections open now. */
  openSockets(): number;
  /** The first message, sent already or to come, that `match` accepts; rejects after `timeoutMs`. */
  waitForMessage(match: (message: SentMessage) => boolean, timeoutMs?: number): Promise<SentMessage>;
  /**
   * The next prompt that runs a KSampler (or ImgtaskTestSteps) fails there with execution_error (an exception, or a
   * CUDA out-of-memory).
   */
  failNext(kind: FailureKind, message: string, times?: number): void;
  /**
   * A restart: the running job stops without a word, the queue and the history are forgotten (the server keeps
   * listening).
   */
  forget(): void;
  /**
   * At the first progress message of the next job that samples, every WebSocket is cut; the job goes on and lands in
   * history.
   */
  dropSocketsDuringNextJob(): void;
  /**
   * At the first progress message of the next job that samples, the server dies: sockets cut, the port refuses, no
   * history.
   */
  dieDuringNextJob(): void;
  /** Jobs pause after their first progress message until releaseJobs() or an interrupt. */
  holdJobs(): void;
  releaseJobs(): void;
  /** While on, every request (and WebSocket upgrade) is answered 503. */
  refuse(on?: boolean): void;
  /** Resolves once the server has died (dieDuringNextJob). */
  died: Promise<void>;
  /**
   * A restart in two steps: stop() cuts every socket and closes the port (connections are
   * refused), forgetting the queue and the history as a restarted ComfyUI does (its files stay);
   * start() listens again on the same port.
   */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(Buffer.concat(chunks)));
  });
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

function write(res: ServerResponse, answer: Answer): void {
  if (res.destroyed) return;
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  if (answer.json === undefined) return void res.end(answer.body);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(answer.json));
}

const formSummary = (form: Multipart | null) =>
  form && {
    fields: form.fields,
    files: form.files.map(({ field, filename, bytes }) => ({ field, filename, bytes: bytes.length })),
  };

export async function startFakeComfyUi(t: TestContext | null, options: FakeComfyUiOptions = {}): Promise<FakeComfyUi> {
  const preview = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } })
    .jpeg()
    .toBuffer();
  const folders = new Folders();
  const checkpoints = options.checkpoints ?? DEFAULT_CHECKPOINTS;
  const catalogue = () => nodeCatalogue(checkpoints, folders.list('input'));
  let executor: Executor | undefined;
  const queue = new PromptQueue(() =>
    sockets.send('status', { status: { exec_info: { queue_remaining: queue.remaining() } } }, null),
  );
  const maxUploadBytes = Math.round((options.maxUploadSizeMb ?? 100) * 1024 * 1024);
  const sockets = new Sockets((sid) => {
    sockets.send('status', { status: { exec_info: { queue_remaining: queue.remaining() } }, sid }, sid);
    // A client that reconnects while its job runs is told the node running now.
    if (executor?.clientId === sid && executor.lastNodeId !== null)
      sockets.send('executing', { node: executor.lastNodeId }, sid);
  }, serverFeatures(maxUploadBytes));
  const requests: RecordedRequest[] = [];
  let refusing = false;
  let markDied: () => void = () => {};
  const died = new Promise<void>((resolve) => (markDied = resolve));
  const server = createServer((req, res) => void handle(req, res));
  const die = () => {
    sockets.terminateAll();
    server.close();
    server.closeAllConnections();
    markDied();
  };
  executor = new Executor(
    queue,
    sockets,
    folders,
    {
      historyDelayMs: options.historyDelayMs ?? 0,
      stepDelayMs: options.stepDelayMs ?? 0,
      maxSteps: options.maxSteps ?? 3,
      previews: options.previews ?? true,
      cache: options.cache ?? true,
    },
    preview,
    die,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const interrupts: InterruptRecord[] = [];
  const ctx: RouteContext = {
    queue,
    executor,
    folders,
    catalogue,
    interrupts,
    counter: { next: 0 },
    port,
    maxUploadBytes,
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const record: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers };
    requests.push(record);
    if (refusing) {
      req.resume();
      return write(res, { status: 503, body: Buffer.from('503: Service Unavailable') });
    }
    const isUpload = req.method === 'POST' && routePath(url.pathname) === '/upload/image';
    const json = isUpload ? undefined : parseJson(await readBody(req));
    if (json !== undefined) record.json = json;
    write(res, await route(ctx, req, url, json, (form) => (record.form = formSummary(form) ?? undefined)));
  }

  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    if (refusing || routePath(url.pathname) !== '/ws') {
      socket.end(
        `HTTP/1.1 ${refusing ? '503 Service Unavailable' : '404 Not Found'}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      return;
    }
    sockets.upgrade(req, socket, head, url.searchParams.get('clientId') ?? '');
  });

  const fake: FakeComfyUi = {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    messages: sockets.sent,
    interrupts,
    queue: () => ({ running: queue.running?.[1] ?? null, pending: queue.pending.map((item) => item[1]) }),
    history: (promptId) => queue.history.get(promptId),
    file: (type, subfolder, filename) => folders.get(type, inside(subfolder, filename) ?? ''),
    openSockets: () => sockets.count(),
    waitForMessage: (match, timeoutMs = 10_000) => waitFor(sockets, match, timeoutMs),
    failNext: (kind, message, times) => executor.failNext(kind, message, times),
    forget: () => {
      executor.forget();
      queue.forget();
      sockets.terminateAll();
    },
    dropSocketsDuringNextJob: () => executor.dropSocketsDuringNextJob(),
    dieDuringNextJob: () => executor.dieDuringNextJob(),
    holdJobs: () => executor.hold(),
    releaseJobs: () => executor.release(),
    refuse: (on = true) => {
      refusing = on;
    },
    died,
    stop: async () => {
      executor.forget();
      queue.forget();
      sockets.terminateAll();
      server.closeAllConnections();
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
    start: async () => {
      if (!server.listening) await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    close: async () => {
      executor.close();
      sockets.close();
      server.closeAllConnections();
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
  t?.after(() => fake.close());
  return fake;
}

function waitFor(sockets: Sockets, match: (message: SentMessage) => boolean, timeoutMs: number): Promise<SentMessage> {
  const found = sockets.sent.find(match);
  if (found) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const onMessage = (message: SentMessage) => {
      if (!match(message)) return;
      done();
      resolve(message);
    };
    const timer = setTimeout(() => {
      done();
      reject(
        new Error(
          `no matching ComfyUI message within ${timeoutMs} ms; sent: ${sockets.sent.map((m) => m.type).join(', ')}`,
        ),
      );
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      sockets.events.off('message', onMessage);
    };
    sockets.events.on('message', onMessage);
  });
}

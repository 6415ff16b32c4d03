// The HTTP routes of server.py the fake serves (each also under /api, as ComfyUI registers them),
// answering with ComfyUI's status codes and bodies.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type NodeClass, objectInfo } from './catalogue.js';
import type { Executor } from './executor.js';
import { type Answer, type Multipart, readMultipart, upload, view } from './files.js';
import type { Folders } from './folders.js';
import type { PromptQueue, QueueItem } from './queue.js';
import { serverFeatures } from './sockets.js';
import { validatePrompt } from './validate.js';

export interface InterruptRecord {
  /** The prompt_id the request named; null for a global interrupt. */
  promptId: string | null;
  /** Whether it stopped something: the named prompt was the one running, or (global) always. */
  interrupted: boolean;
}

export interface RouteContext {
  queue: PromptQueue;
  executor: Executor;
  folders: Folders;
  catalogue: () => Record<string, NodeClass>;
  interrupts: InterruptRecord[];
  /** PromptServer.number: the next prompt's number. */
  counter: { next: number };
  port: number;
  /** --max-upload-size in bytes: aiohttp's client_max_size, past which a form is answered 413. */
  maxUploadBytes: number;
}

/** aiohttp's answer to an exception a handler did not catch. */
const CRASH: Answer = {
  status: 500,
  body: Buffer.from('500 Internal Server Error\n\nServer got itself in trouble'),
  headers: { 'content-type': 'text/plain; charset=utf-8' },
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isObject = (value: unknown): value is Record<string, any> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
/** aiohttp's HTTPRequestEntityTooLarge, raised by request.post() once the body passes client_max_size. */
const tooLarge = (max: number, actual: number): Answer => ({
  status: 413,
  body: Buffer.from(`Maximum request body size ${max} exceeded, actual body size ${actual}`),
  headers: { 'content-type': 'text/plain; charset=utf-8' },
});
const queueInfo = (queue: PromptQueue) => ({ exec_info: { queue_remaining: queue.remaining() } });
const promptError = (type: string, message: string) => ({
  status: 400,
  json: { error: { type, message, details: message, extra_info: {} }, node_errors: {} },
});

function postPrompt(ctx: RouteContext, body: unknown): Answer {
  if (!isObject(body)) return CRASH;
  let number: number;
  if ('number' in body) number = Number(body.number);
  else {
    number = body.front ? -ctx.counter.next : ctx.counter.next;
    ctx.counter.next++;
  }
  if (!('prompt' in body)) return promptError('no_prompt', 'No prompt provided');
  // Current ComfyUI takes the client's own prompt_id when it is a canonical lowercase UUID.
  if ('prompt_id' in body && !(typeof body.prompt_id === 'string' && UUID.test(body.prompt_id)))
    return promptError('invalid_prompt_id', 'Invalid prompt_id format');
  const promptId: string = body.prompt_id ?? randomUUID();
  const targets = Array.isArray(body.partial_execution_targets) ? body.partial_execution_targets.map(String) : null;
  let validation: ReturnType<typeof validatePrompt>;
  try {
    validation = validatePrompt(
      body.prompt,
      ctx.catalogue(),
      (name) => ctx.folders.annotatedFile(name) !== undefined,
      targets,
    );
  } catch {
    return CRASH;
  }
  if (!validation.valid) return { status: 400, json: { error: validation.error, node_errors: validation.nodeErrors } };
  const extraData: Record<string, unknown> = isObject(body.extra_data) ? body.extra_data : {};
  if ('client_id' in body) extraData.client_id = body.client_id;
  extraData.create_time = Date.now();
  const item: QueueItem = [number, promptId, body.prompt, extraData, validation.outputs];
  ctx.queue.put(item);
  ctx.executor.schedule();
  return { status: 200, json: { prompt_id: promptId, number, node_errors: validation.nodeErrors } };
}

function postQueue(ctx: RouteContext, body: any): Answer {
  if (!isObject(body)) return CRASH;
  if (body.clear) ctx.queue.wipe();
  if (Array.isArray(body.delete)) for (const id of body.delete) ctx.queue.delete(id);
  return { status: 200 };
}

/** POST /interrupt: with a prompt_id, stops that prompt only if it is the one running; without, whatever runs. */
function postInterrupt(ctx: RouteContext, body: unknown): Answer {
  const promptId = isObject(body) && body.prompt_id ? String(body.prompt_id) : null;
  const interrupted = promptId === null || ctx.queue.running?.[1] === promptId;
  if (interrupted) ctx.executor.interrupt();
  ctx.interrupts.push({ promptId, interrupted });
  return { status: 200 };
}

function postHistory(ctx: RouteContext, body: unknown): Answer {
  if (!isObject(body)) return CRASH;
  if (body.clear) ctx.queue.history.clear();
  if (Array.isArray(body.delete)) for (const id of body.delete) ctx.queue.history.delete(id);
  return { status: 200 };
}

function systemStats(port: number) {
  return {
    system: {
      os: 'posix',
      ram_total: 67_108_864_000,
      ram_free: 48_318_382_080,
      comfyui_version: '0.3.64',
      required_frontend_version: '1.27.10',
      python_version: '3.12.3 (main, Jun 18 2025, 17:59:45) [GCC 13.3.0]',
      pytorch_version: '2.8.0+cu128',
      embedded_python: false,
      argv: ['main.py', '--listen', '127.0.0.1', '--port', String(port)],
    },
    devices: [
      {
        name: 'cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync',
        type: 'cuda',
        index: 0,
        vram_total: 25_386_352_640,
        vram_free: 24_811_732_992,
        torch_vram_total: 0,
        torch_vram_free: 0,
      },
    ],
  };
}

function getRoute(ctx: RouteContext, path: string, query: URLSearchParams): Answer | Promise<Answer> | null {
  if (path === '/prompt') return { status: 200, json: queueInfo(ctx.queue) };
  if (path === '/queue')
    return {
      status: 200,
      json: { queue_running: ctx.queue.running ? [ctx.queue.running] : [], queue_pending: ctx.queue.pending },
    };
  if (path === '/history') {
    const maxItems = query.has('max_items') ? Number(query.get('max_items')) : undefined;
    return {
      status: 200,
      json: ctx.queue.read(undefined, maxItems, query.has('offset') ? Number(query.get('offset')) : -1),
    };
  }
  if (path.startsWith('/history/'))
    return { status: 200, json: ctx.queue.read(decodeURIComponent(path.slice('/history/'.length))) };
  if (path === '/view') return view(query, ctx.folders);
  if (path === '/system_stats') return { status: 200, json: systemStats(ctx.port) };
  if (path === '/object_info')
    return {
      status: 200,
      json: Object.fromEntries(Object.entries(ctx.catalogue()).map(([name, node]) => [name, objectInfo(name, node)])),
    };
  if (path.startsWith('/object_info/')) {
    const name = decodeURIComponent(path.slice('/object_info/'.length));
    const node = ctx.catalogue()[name];
    return { status: 200, json: node ? { [name]: objectInfo(name, node) } : {} };
  }
  if (path === '/features') return { status: 200, json: serverFeatures(ctx.maxUploadBytes) };
  if (path === '/embeddings' || path === '/extensions') return { status: 200, json: [] };
  // A plain GET of /ws, without the upgrade: aiohttp's "No WebSocket UPGRADE hdr".
  if (path === '/ws') return { status: 400 };
  return null;
}

const POST_ROUTES: Record<string, (ctx: RouteContext, body: any) => Answer> = {
  '/prompt': postPrompt,
  '/queue': postQueue,
  '/interrupt': postInterrupt,
  '/history': postHistory,
  '/free': (_ctx, body) => (isObject(body) ? { status: 200 } : CRASH),
};

/** The route a path names: every route is also served under /api. */
export const routePath = (pathname: string): string =>
  pathname.startsWith('/api/') ? pathname.slice('/api'.length) : pathname;

/**
 * Answers one request. `json` is its body read as JSON (undefined when it is not JSON; the upload
 * route reads its multipart body itself, and hands it to `onForm` for the request log).
 */
export async function route(
  ctx: RouteContext,
  req: IncomingMessage,
  url: URL,
  json: unknown,
  onForm: (form: Multipart | null) => void,
): Promise<Answer> {
  const path = routePath(url.pathname);
  let answer: Answer | null = null;
  if (req.method === 'GET') answer = await getRoute(ctx, path, url.searchParams);
  else if (req.method === 'POST' && path === '/upload/image') {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    const form = await readMultipart(req);
    onForm(form);
    answer = bytes > ctx.maxUploadBytes ? tooLarge(ctx.maxUploadBytes, bytes) : upload(form, ctx.folders);
  } else if (req.method === 'POST' && POST_ROUTES[path]) {
    // The interrupt route alone reads a body that is not JSON as {}; elsewhere request.json() raises.
    answer = json === undefined && path !== '/interrupt' ? CRASH : POST_ROUTES[path](ctx, json ?? {});
  }
  return (
    answer ?? {
      status: 404,
      body: Buffer.from('404: Not Found'),
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    }
  );
}

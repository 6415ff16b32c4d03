/**
 * ComfyUI in front of imgtask (a part of `npm run bench:providers`, BENCH_ONLY=comfyui): the
 * fake ComfyUI of test/fakes (one executor per server, a job done in a few ms: its own cost is
 * what is left) driven two ways in the same run, with the same number of jobs in flight:
 *  - bare: a client speaking ComfyUI's protocol itself (open /ws, POST /prompt, wait for
 *    execution_success, GET /history, GET /view): jobs/s and p50/p99 per job;
 *  - imgtask: POST /image/generate of a model served by those servers, each task followed on its
 *    live stream until settled (the image stored, the task settled): images/s and p50/p99 per image.
 * The ratio and the difference of the medians are imgtask's overhead per item. 1 and 4 servers.
 * The fakes run in a child process of their own; imgtask in this one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
/** Jobs in flight per server: ComfyUI runs one, the others wait in its queue. */
const PER_SERVER = 4;
const FAKES = join(import.meta.dirname, 'fixtures/comfyui-fakes.ts');

interface Figure {
  perSecond: number;
  p50: number;
  p99: number;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/**
 * Runs `job` in `width` loops for SECONDS (after a 1 s warm-up); answers completions per second and latency
 * percentiles.
 */
async function drive(width: number, job: (n: number) => Promise<void>): Promise<Figure> {
  const run = async (ms: number) => {
    const latencies: number[] = [];
    const until = performance.now() + ms;
    let n = 0;
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (performance.now() < until) {
          const t0 = performance.now();
          await job(n++);
          latencies.push(performance.now() - t0);
        }
      }),
    );
    return latencies;
  };
  await run(1000);
  const t0 = performance.now();
  const latencies = await run(SECONDS * 1000);
  return {
    perSecond: latencies.length / ((performance.now() - t0) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/** The fakes, in a child process: answers their base URLs and how to stop them. */
async function startFakes(count: number): Promise<{ urls: string[]; stop: () => void }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', FAKES, String(count)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.once('exit', (code) => reject(new Error(`the fakes exited (${code})`)));
  });
  return { urls: line.split(' '), stop: () => child.kill('SIGTERM') };
}

/** One job the way a ComfyUI client runs it, on `baseUrl`. */
async function bareJob(
  baseUrl: string,
  graph: Record<string, { inputs: Record<string, unknown> }>,
  seed: number,
): Promise<void> {
  const clientId = crypto.randomUUID();
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws?clientId=${clientId}`);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  // Every job message is kept until the prompt id is known, then matched.
  const messages: { type: string; data: { prompt_id?: string } }[] = [];
  let wake = () => {};
  socket.on('message', (raw, binary) => {
    if (binary) return;
    messages.push(JSON.parse(raw.toString()));
    wake();
  });
  const prompt = structuredClone(graph);
  prompt['3'].inputs.seed = seed;
  const res = await fetch(`${baseUrl}/prompt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, client_id: clientId }),
  });
  const { prompt_id: promptId } = (await res.json()) as { prompt_id: string };
  for (;;) {
    const mine = messages.filter((m) => m.data?.prompt_id === promptId);
    if (mine.some((m) => m.type === 'execution_error')) throw new Error('execution_error');
    if (mine.some((m) => m.type === 'execution_success')) break;
    await new Promise<void>((resolve) => (wake = resolve));
  }
  socket.terminate();
  const history = (await (await fetch(`${baseUrl}/history/${promptId}`)).json()) as Record<
    string,
    { outputs: Record<string, { images?: { filename: string; subfolder: string; type: string }[] }> }
  >;
  const file = Object.values(history[promptId].outputs).flatMap((output) => output.images ?? [])[0];
  const view = await fetch(
    `${baseUrl}/view?${new URLSearchParams({ filename: file.filename, subfolder: file.subfolder, type: file.type })}`,
  );
  await view.arrayBuffer();
}

/** One image through imgtask: the create, then its live stream until the settled event. */
async function imgtaskJob(
  url: string,
  headers: Record<string, string>,
  seed: number,
  mark: (label: string) => void = () => {},
): Promise<void> {
  const res = await fetch(`${url}/image/generate`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ prompt: 'a lighthouse at dawn', model: 'comfy', seed, output: { format: 'png' } }),
  });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  const { data } = (await res.json()) as { data: { taskId: string } };
  mark('created');
  const stream = await fetch(`${url}/tasks/${data.taskId}/events`, {
    headers: { authorization: headers.authorization },
  });
  const reader = stream.body!.getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString();
    if (text.includes('event: settled')) break;
    mark(`sse ${text.length}`);
  }
  mark('settled');
  await reader.cancel();
  if (!text.includes('"status":"completed"'))
    throw new Error(`task ${data.taskId} did not complete: ${text.slice(-300)}`);
}

/** imgtask in this process, its model served by `urls`. */
async function imgtaskOn(urls: string[], workflow: unknown) {
  const { startServer } = await import('../../src/app/server.js');
  const { loadConfig } = await import('../../src/config/load.js');
  const dir = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
  const file = join(dir, 'workflow.json');
  await writeFile(file, JSON.stringify(workflow));
  const providers = Object.fromEntries(
    urls.map((baseUrl, i) => [`gpu-${i + 1}`, { type: 'comfyui', baseUrl, concurrency: PER_SERVER }]),
  );
  const config = loadConfig({
    env: {},
    overrides: {
      server: { host: '127.0.0.1', port: 0 },
      log: { level: 'warn' },
      // Only the engine in front of ComfyUI: no embedded model loading beside it.
      embedded: {
        preload: false,
        nsfw: { enabled: false },
        backgroundRemoval: { enabled: false },
        altText: { enabled: false },
      },
      providers,
      models: {
        comfy: {
          providers: Object.keys(providers),
          workflow: file,
          bindings: {
            prompt: '6.inputs.text',
            seed: '3.inputs.seed',
            width: '5.inputs.width',
            height: '5.inputs.height',
            batchSize: '5.inputs.batch_size',
          },
          price: { perImage: '0.001', perInput: '0' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: true, nativeSize: '64x64' },
        },
      },
    },
  });
  const server = await startServer({ dataDir: join(dir, 'data'), config });
  const account = await server.services.accounts.create('bench', 1_000_000 * 1_000_000);
  const { raw } = await server.services.apiKeys.create({ accountId: account.id, name: 'bench' });
  return {
    url: server.url,
    headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' },
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function comfyuiBench(): Promise<void> {
  const { txt2imgWorkflow } = await import('../../test/fakes/comfyui.js');
  const graph = txt2imgWorkflow() as unknown as Record<string, { inputs: Record<string, unknown> }>;
  // Small images: the fake's own work is drawing them.
  graph['5'].inputs.width = 64;
  graph['5'].inputs.height = 64;
  console.log(
    `\nComfyUI (the fake of test/fakes, a job in a few ms): ${PER_SERVER} jobs in flight per server, ${SECONDS} s after a 1 s warm-up`,
  );
  console.log(
    '| servers | bare ComfyUI client: jobs/s, p50 / p99 ms | imgtask generate until settled: images/s, p50 / p99 ms | ratio | overhead per item (p50) |',
  );
  console.log('|---|---|---|---|---|');
  for (const count of [1, 4]) {
    const fakes = await startFakes(count);
    try {
      const bare = await drive(PER_SERVER * count, (n) => bareJob(fakes.urls[n % count], graph, n));
      const imgtask = await imgtaskOn(fakes.urls, graph);
      try {
        // size auto is the model's native 64², as the bare graph draws.
        const ours = await drive(PER_SERVER * count, (n) => imgtaskJob(imgtask.url, imgtask.headers, 1_000_000 + n));
        console.log(
          `| ${count} | ${bare.perSecond.toFixed(0)}/s, ${bare.p50.toFixed(1)} / ${bare.p99.toFixed(1)} | ${ours.perSecond.toFixed(0)}/s, ${ours.p50.toFixed(1)} / ${ours.p99.toFixed(1)} | ${(ours.perSecond / bare.perSecond).toFixed(2)} | ${(ours.p50 - bare.p50).toFixed(1)} ms |`,
        );
      } finally {
        await imgtask.close();
      }
    } finally {
      fakes.stop();
    }
  }
}

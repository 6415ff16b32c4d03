import { runOutputs } from '../../../domain/comfy-outputs.js';
import type { LoadedWorkflow } from '../../../domain/comfy-workflows.js';
import { ProviderError } from '../../../domain/task-status.js';
import type {
  GeneratedImage,
  GeneratedVideo,
  GenerateParams,
  ImageGenerator,
  SourceImage,
  VideoGenerator,
  VideoParams,
} from '../../provider-types.js';
import { type ComfyFile, type ComfyServer, comfyHttp, type HistoryEntry } from './comfy-http.js';
import { ServerUnreachable } from './failures.js';
import { runJob } from './job.js';
import { type ComfyLog, createOutage, type ProbeBackoff, rerunWhenForgotten } from './outage.js';
import { createRequestGraphs } from './request-graph.js';
import { createSharedRuns, type RunHooks } from './shared-runs.js';

export interface ComfyUiOptions extends ComfyServer {
  timeoutMs: number;
  pollIntervalMs: number;
  /**
   * Busy while the server's queue holds this many waiting jobs (every client's, from GET /queue); null: never for that.
   */
  maxQueued: number | null;
  /**
   * The workflow of an image model (`models.<id>`) or a video model (`videoModels.<id>`), as loaded with the config.
   */
  workflowOf(key: string): LoadedWorkflow | undefined;
  /** Where the server's going down and coming back are logged. */
  log?: ComfyLog;
  /** How often a server that is down is asked again (tests make it short). @default PROBE_BACKOFF */
  probeBackoff?: ProbeBackoff;
}
/** How often the server's queue is read, at most, while work asks whether it is busy. */
const QUEUE_READ_MS = 2000;

/**
 * Output lists a history entry may hold: SaveImage and most nodes use `images`, VideoHelperSuite's VHS_VideoCombine
 * `gifs`.
 */
const OUTPUT_LISTS = ['images', 'gifs', 'videos'];

/**
 * Files a job wrote to ComfyUI's output folder (previews go to `temp` and are skipped), in node order; of `nodes` only,
 * when given.
 */
export function outputFiles(entry: HistoryEntry, nodes?: readonly string[]): ComfyFile[] {
  const files: ComfyFile[] = [];
  for (const node of nodes ?? Object.keys(entry.outputs).sort((a, b) => Number(a) - Number(b) || a.localeCompare(b))) {
    for (const list of OUTPUT_LISTS) {
      const listed = entry.outputs[node]?.[list];
      if (!Array.isArray(listed)) continue;
      for (const file of listed as Partial<ComfyFile>[]) {
        if (typeof file?.filename === 'string' && file.type !== 'temp')
          files.push({ filename: file.filename, subfolder: file.subfolder ?? '', type: file.type ?? 'output' });
      }
    }
  }
  return files;
}

const VIDEO_EXTENSIONS: Record<string, GeneratedVideo['format']> = { mp4: 'mp4', webp: 'webp' };
const extensionOf = (filename: string) => filename.slice(filename.lastIndexOf('.') + 1).toLowerCase();

/**
 * One ComfyUI server as an image and a video generator: each item uploads its input images,
 * binds the request into a copy of the model's workflow, runs it (runJob) and reads the first
 * file it wrote. A server that cannot be reached is down (outage.ts) until a probe finds it back:
 * failover sends items to the model's servers that are up, and an item given a server that is
 * down (every one is) waits for it. One whose queue holds `maxQueued` waiting jobs is busy, so
 * the model's next provider is tried at once.
 */
export function createComfyUi(options: ComfyUiOptions): { image: ImageGenerator; video: VideoGenerator } {
  const http = comfyHttp(options);
  // The graph each item queues: the model's workflow bound, or a posted graph checked against the server.
  const requestGraph = createRequestGraphs(http, options.name);
  // Items that are outputs of one run share its job (GenerateParams.run).
  // A failure another try would meet again (a node's exception, a graph the server refuses) is kept for the items still
  // to come.
  const runs = createSharedRuns<HistoryEntry>(
    undefined,
    (err) => err instanceof ProviderError && !err.retryable && !(err instanceof ServerUnreachable),
  );
  const outage = createOutage({
    name: options.name,
    probe: (signal) => http.systemStats(signal),
    log: options.log,
    backoff: options.probeBackoff,
  });
  // The server's queue as last read (GET /queue): read again in the background when older than
  // QUEUE_READ_MS, so asking costs nothing; a read that cannot reach the server marks it down.
  let waiting = 0;
  let readAt = 0;
  let reading = false;
  const readQueue = () => {
    if (reading || Date.now() - readAt < QUEUE_READ_MS) return;
    reading = true;
    http
      .queue(AbortSignal.timeout(QUEUE_READ_MS))
      .then((queue) => {
        waiting = queue.queue_pending.length;
        outage.answered();
      })
      .catch((err: unknown) => outage.failed(err))
      .finally(() => {
        reading = false;
        readAt = Date.now();
      });
  };
  const busy = () => {
    readQueue();
    return options.maxQueued !== null && waiting >= options.maxQueued;
  };
  const down = () => outage.down();

  async function run(
    key: string,
    params: GenerateParams | VideoParams,
    inputs: SourceImage[],
    extra: { batchSize?: number; fps?: number; frames?: number },
  ): Promise<{ file: ComfyFile; data: Buffer }> {
    const workflow = options.workflowOf(key);
    if (!workflow)
      throw new ProviderError('CAPABILITY_NOT_SUPPORTED', `${key} has no ComfyUI workflow configured`, {
        retryable: false,
      });
    try {
      // Failover picks a server that is down only when every server of the model is: wait for it.
      await outage.waitUntilUp(params.signal, options.timeoutMs);
      const images = await Promise.all(inputs.map((input) => http.upload(input, params.signal)));
      const graph = await requestGraph(workflow, params, {
        prompt: params.prompt,
        negativePrompt: params.negativePrompt,
        seed: params.seed,
        width: params.width,
        height: params.height,
        images,
        ...extra,
      });
      const job = (hooks: RunHooks) =>
        rerunWhenForgotten(
          outage,
          hooks.signal,
          options.timeoutMs,
          (timeoutMs) =>
            runJob({
              server: options,
              http,
              graph,
              signal: hooks.signal,
              timeoutMs,
              pollIntervalMs: options.pollIntervalMs,
              onProgress: hooks.onProgress,
              onPreview: hooks.onPreview,
            }),
          options.log,
        );
      const entry = await (params.run ? runs.join(params.run, params, job) : job(params));
      // The item's output: the first file of its output node, or (one output per run) the first file the job wrote.
      const output = params.run?.output ?? 0;
      const node = (params.workflow ? runOutputs(params.workflow, undefined) : workflow.outputs)?.[output];
      const [file] = node !== undefined ? outputFiles(entry, [node]) : output === 0 ? outputFiles(entry) : [];
      if (!file && params.run)
        throw new ProviderError(
          'PROVIDER_ERROR',
          `${options.name}: the workflow of ${key} wrote no file for output ${output + 1} of ${params.run.outputs}${node === undefined ? '' : ` (node ${node})`}`,
          { retryable: false },
        );
      if (!file)
        throw new ProviderError(
          'PROVIDER_ERROR',
          `${options.name}: the workflow of ${key} wrote no output file (does it end in a Save node?)`,
          { retryable: false },
        );
      return { file, data: await http.view(file, params.signal) };
    } catch (err) {
      // Not reached, or gone mid-job: down until a probe finds it back (not on a cancel).
      if (!params.signal.aborted) outage.failed(err);
      throw err;
    }
  }

  return {
    image: {
      busy,
      down,
      async generate(params: GenerateParams): Promise<GeneratedImage> {
        // One image per item.
        const { data } = await run(`models.${params.model}`, params, params.inputs, { batchSize: 1 });
        return { data };
      },
    },
    video: {
      busy,
      down,
      async generate(params: VideoParams): Promise<GeneratedVideo> {
        const { file, data } = await run(`videoModels.${params.model}`, params, params.input ? [params.input] : [], {
          fps: params.fps,
          frames: Math.max(1, Math.round(params.durationS * params.fps)),
        });
        const format = VIDEO_EXTENSIONS[extensionOf(file.filename)];
        if (!format)
          throw new ProviderError(
            'PROVIDER_ERROR',
            `${options.name}: the workflow wrote ${file.filename}; video models take MP4 or animated WebP output`,
            { retryable: false },
          );
        return { data, format };
      },
    },
  };
}

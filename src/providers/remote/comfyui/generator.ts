import type { LoadedWorkflow } from '../../../domain/comfy-workflows.js';
import { ProviderError } from '../../../domain/tasks.js';
import type { GeneratedImage, GeneratedVideo, GenerateParams, ImageGenerator, SourceImage, VideoGenerator, VideoParams } from '../../types.js';
import { bindWorkflow } from './graph.js';
import { type ComfyFile, type ComfyServer, comfyHttp, type HistoryEntry } from './http.js';
import { runJob } from './job.js';

export interface ComfyUiOptions extends ComfyServer {
  timeoutMs: number;
  pollIntervalMs: number;
  /** Busy while the server's queue holds this many waiting jobs (every client's, from GET /queue); null: never for that. */
  maxQueued: number | null;
  /** The workflow of an image model (`models.<id>`) or a video model (`videoModels.<id>`), as loaded with the config. */
  workflowOf(key: string): LoadedWorkflow | undefined;
}

/** After this long with no answer a server that refused connections is tried again. */
const DOWN_FOR_MS = 5000;
/** How often the server's queue is read, at most, while work asks whether it is busy. */
const QUEUE_READ_MS = 2000;

/** Output lists a history entry may hold: SaveImage and most nodes use `images`, VideoHelperSuite's VHS_VideoCombine `gifs`. */
const OUTPUT_LISTS = ['images', 'gifs', 'videos'];

/** Files a job wrote to ComfyUI's output folder (previews go to `temp` and are skipped), in node order. */
export function outputFiles(entry: HistoryEntry): ComfyFile[] {
  const files: ComfyFile[] = [];
  for (const node of Object.keys(entry.outputs).sort((a, b) => Number(a) - Number(b) || a.localeCompare(b))) {
    for (const list of OUTPUT_LISTS) {
      const listed = entry.outputs[node]?.[list];
      if (!Array.isArray(listed)) continue;
      for (const file of listed as Partial<ComfyFile>[]) {
        if (typeof file?.filename === 'string' && file.type !== 'temp') files.push({ filename: file.filename, subfolder: file.subfolder ?? '', type: file.type ?? 'output' });
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
 * file it wrote. A server that refused connections (or whose queue could not be read) counts
 * as busy for a few seconds, and one whose queue holds `maxQueued` waiting jobs while it does,
 * so the model's next provider is tried at once.
 */
export function createComfyUi(options: ComfyUiOptions): { image: ImageGenerator; video: VideoGenerator } {
  const http = comfyHttp(options);
  let downUntil = 0;
  // The server's queue as last read (GET /queue): read again in the background when older than
  // QUEUE_READ_MS, so asking costs nothing; a read that fails counts the server down.
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
      })
      .catch(() => {
        downUntil = Date.now() + DOWN_FOR_MS;
      })
      .finally(() => {
        reading = false;
        readAt = Date.now();
      });
  };
  const busy = () => {
    readQueue();
    return Date.now() < downUntil || (options.maxQueued !== null && waiting >= options.maxQueued);
  };

  async function run(
    key: string,
    params: GenerateParams | VideoParams,
    inputs: SourceImage[],
    extra: { batchSize?: number; fps?: number; frames?: number },
  ): Promise<{ file: ComfyFile; data: Buffer }> {
    const workflow = options.workflowOf(key);
    if (!workflow) throw new ProviderError('CAPABILITY_NOT_SUPPORTED', `${key} has no ComfyUI workflow configured`, { retryable: false });
    try {
      const images = await Promise.all(inputs.map((input) => http.upload(input, params.signal)));
      const graph = bindWorkflow(workflow.graph, workflow.bindings, {
        prompt: params.prompt,
        negativePrompt: params.negativePrompt,
        seed: params.seed,
        width: params.width,
        height: params.height,
        images,
        ...extra,
      });
      const entry = await runJob({
        server: options,
        http,
        graph,
        signal: params.signal,
        timeoutMs: options.timeoutMs,
        pollIntervalMs: options.pollIntervalMs,
        onProgress: params.onProgress,
        onPreview: params.onPreview,
      });
      const [file] = outputFiles(entry);
      if (!file) throw new ProviderError('PROVIDER_ERROR', `${options.name}: the workflow of ${key} wrote no output file (does it end in a Save node?)`, { retryable: false });
      return { file, data: await http.view(file, params.signal) };
    } catch (err) {
      // Not reached, gone mid-job, or restarted: the next attempts go elsewhere for a while (not on a cancel).
      if (!params.signal.aborted && err instanceof ProviderError && err.code === 'PROVIDER_ERROR' && /cannot reach the provider|answer was cut off|went away|no longer knows/.test(err.message)) {
        downUntil = Date.now() + DOWN_FOR_MS;
      }
      throw err;
    }
  }

  return {
    image: {
      busy,
      async generate(params: GenerateParams): Promise<GeneratedImage> {
        // One image per item.
        const { data } = await run(`models.${params.model}`, params, params.inputs, { batchSize: 1 });
        return { data };
      },
    },
    video: {
      busy,
      async generate(params: VideoParams): Promise<GeneratedVideo> {
        const { file, data } = await run(`videoModels.${params.model}`, params, params.input ? [params.input] : [], {
          fps: params.fps,
          frames: Math.max(1, Math.round(params.durationS * params.fps)),
        });
        const format = VIDEO_EXTENSIONS[extensionOf(file.filename)];
        if (!format) throw new ProviderError('PROVIDER_ERROR', `${options.name}: the workflow wrote ${file.filename}; video models take MP4 or animated WebP output`, { retryable: false });
        return { data, format };
      },
    },
  };
}

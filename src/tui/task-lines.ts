import type { TaskView } from '../client/http-client.js';

/** How a piece of a line reads: good (success), bad (failure), busy (pending); none is plain. */
export type Tone = 'good' | 'bad' | 'busy';
export interface Segment {
  text: string;
  tone?: Tone;
  bold?: boolean;
}
/** One line of a task's report, in pieces that a terminal view may colour. */
export type Line = Segment[];

export interface TaskLinesOptions {
  /** The local file each uploaded image id (or URL) came from, to name it as the user gave it. */
  files?: ReadonlyMap<string, string>;
  /** The header's elapsed time, while a view follows the task. */
  elapsed?: string;
}

type Destination =
  | { name: string; status: 'success'; key: string; url: string | null }
  | { name: string; status: 'failed'; error: { code: string; message: string } };
/** An image item of a generate or remove-background result, as the CLI keeps it (`savedTo` once --out wrote it). */
export interface ImageItem {
  /** Absent on remove-background's one image, which is there only when it succeeded. */
  status?: 'success' | 'failed';
  id?: string;
  size?: string;
  url?: string | null;
  service_url?: string;
  destination?: Destination;
  rating?: { status: 'success'; level: string } | { status: 'failed'; error: { code: string } };
  error?: { code: string; message?: string };
  savedTo?: string;
}
export interface UrlResult {
  status: 'success' | 'failed';
  url: string;
  level?: string;
  alt?: string;
  error?: { code: string; message?: string };
}

/**
 * The image items of a task: generate's images, remove-background's one image. The result's own
 * objects, not copies: --out notes where it saved each on them, and the report reads it there.
 */
export function imagesOf(task: TaskView): ImageItem[] {
  if (task.type === 'image.remove_background') return task.result ? [task.result.image as ImageItem] : [];
  if (task.type === 'image.generate') return (task.result?.images ?? []) as ImageItem[];
  return [];
}

/** A video item of a video.generate result, as the CLI keeps it (`savedTo` once --out wrote it). */
export interface VideoItem {
  status: 'success' | 'failed';
  id?: string;
  size?: string;
  duration_s?: number;
  fps?: number;
  format?: 'mp4' | 'webp';
  cost?: string;
  url?: string | null;
  service_url?: string;
  destination?: Destination;
  error?: { code: string; message?: string };
  savedTo?: string;
}

/** The video items of a video.generate task (the result's own objects, so --out can note where it saved each). */
export const videosOf = (task: TaskView): VideoItem[] =>
  task.type === 'video.generate' ? ((task.result?.videos ?? []) as VideoItem[]) : [];

/** Rate and alt results: one per URL, with its level or alt text. */
export const urlResultsOf = (task: TaskView): UrlResult[] =>
  task.type === 'image.rate' || task.type === 'image.alt' ? (task.result?.results ?? []) : [];
/** Cost and errors are on the full task; a PAT reads only the result view. */
export const costOf = (task: TaskView): string | undefined => ('cost' in task ? task.cost : undefined);
export const errorsOf = (task: TaskView): { code: string; message?: string }[] =>
  'errors' in task ? (task.errors ?? []) : [];
/** The task's deadline (Cancel-After), when it was given one; on the full task only. */
export const deadlineOf = (task: TaskView): string | undefined => ('deadlineAt' in task ? task.deadlineAt : undefined);

/** Priority (when not the default 0) and deadline (when set): why the task ran when it did, and when it gives up. */
function schedulingLine(task: TaskView): Line | undefined {
  const parts: string[] = [];
  if ('priority' in task && task.priority) parts.push(`priority ${task.priority}`);
  const deadline = deadlineOf(task);
  if (deadline) parts.push(`deadline ${deadline}`);
  return parts.length > 0 ? [{ text: `  ${parts.join('  ')}` }] : undefined;
}

/**
 * The model parameters the request set (`parameters`), as NAME=VALUE: what made this run differ from the model's
 * defaults.
 */
function parametersLine(task: TaskView): Line | undefined {
  const request = 'request' in task ? (task.request as { parameters?: unknown }) : undefined;
  const parameters = request?.parameters;
  if (!parameters || typeof parameters !== 'object' || Object.keys(parameters).length === 0) return undefined;
  return [
    {
      text: `  parameters ${Object.entries(parameters)
        .map(([name, value]) => `${name}=${String(value)}`)
        .join('  ')}`,
    },
  ];
}

const tone = (status: string): Tone => (status === 'completed' ? 'good' : status === 'failed' ? 'bad' : 'busy');
const code = (error: { code: string; message?: string } | undefined): string =>
  `${error?.code ?? 'UNKNOWN_ERROR'}${error?.message ? `: ${error.message}` : ''}`;

/** A source as the user gave it: `photo.png (img_…)` for an uploaded local file, else the URL or id. */
export const sourceName = (url: string, files?: ReadonlyMap<string, string>): string => {
  const file = files?.get(url);
  return file ? `${file} (${url})` : url;
};

/**
 * The line of one URL result of rate or alt: its level or alt text, or ✗ its error code and why (the API's message).
 */
export const urlResultLine = (r: UrlResult, files?: ReadonlyMap<string, string>): Line =>
  r.status === 'success'
    ? [{ text: `  ${sourceName(r.url, files)}: ${r.level ?? r.alt}` }]
    : [{ text: `  ${sourceName(r.url, files)}: ` }, { text: `✗ ${code(r.error)}`, tone: 'bad' }];

/** A review's result, as the CLI shows it. */
export interface ReviewView {
  verdict: 'pass' | 'fail';
  score: number;
  findings: { criterion: string; passed: boolean; note: string }[];
  summary: string;
}

/** The review of an image.review task (null while pending or when it failed). */
export const reviewOf = (task: TaskView): ReviewView | null =>
  task.type === 'image.review' ? ((task.result as ReviewView | null | undefined) ?? null) : null;

/** A review's lines: the verdict and score, one line per finding (✓/✗ criterion — note), the summary. */
export function reviewLines(review: ReviewView): Line[] {
  return [
    [
      { text: '  ' },
      { text: review.verdict, tone: review.verdict === 'pass' ? 'good' : 'bad', bold: true },
      { text: `  score ${review.score.toFixed(2)}` },
    ],
    ...review.findings.map(
      (f): Line => [
        { text: '  ' },
        { text: f.passed ? '✓' : '✗', tone: f.passed ? 'good' : 'bad' },
        { text: ` ${f.criterion} — ${f.note}` },
      ],
    ),
    [{ text: `  ${review.summary}` }],
  ];
}

/** Where an item was delivered: ✓ the destination's URL (or key), or ✗ its error. */
const destinationLine = (d: Destination): Line =>
  d.status === 'success'
    ? [{ text: `    destination ${d.name} ` }, { text: '✓', tone: 'good' }, { text: ` ${d.url ?? d.key}` }]
    : [{ text: `    destination ${d.name} ` }, { text: `✗ ${code(d.error)}`, tone: 'bad' }];

function imageLines(image: ImageItem, n: number): Line[] {
  if (image.status === 'failed') return [[{ text: `  image ${n} ` }, { text: `✗ ${code(image.error)}`, tone: 'bad' }]];
  const lines: Line[] = [
    [
      { text: `  image ${n} ` },
      { text: '✓', tone: 'good' },
      { text: ` ${image.size} ${image.url ?? image.service_url}` },
    ],
  ];
  if (image.rating)
    lines.push(
      image.rating.status === 'success'
        ? [{ text: `    rating ${image.rating.level}` }]
        : [{ text: '    rating ' }, { text: `✗ ${image.rating.error.code}`, tone: 'bad' }],
    );
  if (image.destination) lines.push(destinationLine(image.destination));
  if (image.savedTo) lines.push([{ text: `    saved ${image.savedTo}` }]);
  return lines;
}

/**
 * One video: ✓ size, duration, frame rate, format, cost and URL (its destination and saved file below), or ✗ its error.
 */
function videoLines(video: VideoItem, n: number): Line[] {
  if (video.status !== 'success') return [[{ text: `  video ${n} ` }, { text: `✗ ${code(video.error)}`, tone: 'bad' }]];
  const lines: Line[] = [
    [
      { text: `  video ${n} ` },
      { text: '✓', tone: 'good' },
      {
        text: ` ${video.size} ${video.duration_s}s ${video.fps}fps ${video.format}${video.cost === undefined ? '' : ` ${video.cost} USD`} ${video.url ?? video.service_url}`,
      },
    ],
  ];
  if (video.destination) lines.push(destinationLine(video.destination));
  if (video.savedTo) lines.push([{ text: `    saved ${video.savedTo}` }]);
  return lines;
}

/**
 * A task's report, line by line: id, type, status and cost; its priority and deadline when
 * set; the model parameters the request set; the rewritten (magic) prompt; each
 * image with its size and URL, rating level, destination outcome and where --out saved it;
 * each video with its size, duration, frame rate, format, cost and URL (the same below it);
 * each rate/alt result under the name it was given; the task's errors when it failed.
 */
export function taskLines(task: TaskView, options: TaskLinesOptions = {}): Line[] {
  const cost = costOf(task);
  const lines: Line[] = [
    [
      { text: task.id, bold: true },
      { text: ` ${task.type} ` },
      { text: task.status, tone: tone(task.status) },
      {
        text: `${options.elapsed ? ` ${options.elapsed}` : ''}${cost !== undefined && task.status !== 'pending' ? `  cost ${cost} USD` : ''}`,
      },
    ],
  ];
  const scheduling = schedulingLine(task);
  if (scheduling) lines.push(scheduling);
  const parameters = parametersLine(task);
  if (parameters) lines.push(parameters);
  // A deleted task (DELETE /tasks/{id}, retention): what is left is its accounting.
  if (task.dataRemoved === true)
    lines.push([
      {
        text: `  data removed${'dataRemovedAt' in task && task.dataRemovedAt ? ` ${task.dataRemovedAt}` : ''}: its outputs, prompt and result are gone`,
      },
    ]);
  if (task.type === 'image.generate' && task.result?.magic_prompt) {
    lines.push([{ text: `  prompt rewritten: ${task.result.magic_prompt.positive}` }]);
    if (task.result.magic_prompt.negative)
      lines.push([{ text: `  negative prompt rewritten: ${task.result.magic_prompt.negative}` }]);
  }
  for (const [i, image] of imagesOf(task).entries()) lines.push(...imageLines(image, i + 1));
  for (const [i, video] of videosOf(task).entries()) lines.push(...videoLines(video, i + 1));
  for (const r of urlResultsOf(task)) lines.push(urlResultLine(r, options.files));
  const review = reviewOf(task);
  if (review) lines.push(...reviewLines(review));
  for (const e of task.status === 'failed' ? errorsOf(task) : [])
    lines.push([{ text: '  ' }, { text: `✗ ${code(e)}`, tone: 'bad' }]);
  return lines;
}

/** Lines as plain text (no colour). */
export const plainText = (lines: Line[]): string => lines.map((line) => line.map((s) => s.text).join('')).join('\n');

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

type Destination = { name: string; status: 'success'; key: string; url: string | null } | { name: string; status: 'failed'; error: { code: string; message: string } };
/** An image item of a generate or remove-background result, as the CLI keeps it (`savedTo` once --out wrote it). */
export interface ImageItem {
  status: 'success' | 'failed';
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
  error?: { code: string };
}

/** The image items of a task: generate's images, remove-background's one image. */
export function imagesOf(task: TaskView): ImageItem[] {
  if (task.type === 'image.remove_background') return task.result ? [{ status: 'success', ...task.result.image }] : [];
  if (task.type === 'image.generate') return (task.result?.images ?? []) as ImageItem[];
  return [];
}

/** Rate and alt results: one per URL, with its level or alt text. */
export const urlResultsOf = (task: TaskView): UrlResult[] => (task.type === 'image.rate' || task.type === 'image.alt' ? (task.result?.results ?? []) : []);
/** Cost and errors are on the full task; a PAT reads only the result view. */
export const costOf = (task: TaskView): string | undefined => ('cost' in task ? task.cost : undefined);
export const errorsOf = (task: TaskView): { code: string; message?: string }[] => ('errors' in task ? (task.errors ?? []) : []);

const tone = (status: string): Tone => (status === 'completed' ? 'good' : status === 'failed' ? 'bad' : 'busy');
const code = (error: { code: string; message?: string } | undefined): string => `${error?.code ?? 'UNKNOWN_ERROR'}${error?.message ? `: ${error.message}` : ''}`;

/** A source as the user gave it: `photo.png (img_…)` for an uploaded local file, else the URL or id. */
export const sourceName = (url: string, files?: ReadonlyMap<string, string>): string => {
  const file = files?.get(url);
  return file ? `${file} (${url})` : url;
};

/** The lines of one URL result of rate or alt. */
export const urlResultLine = (r: UrlResult, files?: ReadonlyMap<string, string>): Line =>
  r.status === 'success' ? [{ text: `  ${sourceName(r.url, files)}: ${r.level ?? r.alt}` }] : [{ text: `  ${sourceName(r.url, files)}: ` }, { text: `✗ ${r.error?.code}`, tone: 'bad' }];

function imageLines(image: ImageItem, n: number): Line[] {
  if (image.status !== 'success') return [[{ text: `  image ${n} ` }, { text: `✗ ${code(image.error)}`, tone: 'bad' }]];
  const lines: Line[] = [[{ text: `  image ${n} ` }, { text: '✓', tone: 'good' }, { text: ` ${image.size} ${image.url ?? image.service_url}` }]];
  if (image.rating) lines.push(image.rating.status === 'success' ? [{ text: `    rating ${image.rating.level}` }] : [{ text: '    rating ' }, { text: `✗ ${image.rating.error.code}`, tone: 'bad' }]);
  const d = image.destination;
  if (d)
    lines.push(
      d.status === 'success'
        ? [{ text: `    destination ${d.name} ` }, { text: '✓', tone: 'good' }, { text: ` ${d.url ?? d.key}` }]
        : [{ text: `    destination ${d.name} ` }, { text: `✗ ${code(d.error)}`, tone: 'bad' }],
    );
  if (image.savedTo) lines.push([{ text: `    saved ${image.savedTo}` }]);
  return lines;
}

/**
 * A task's report, line by line: id, type, status and cost; the rewritten (magic) prompt; each
 * image with its size and URL, rating level, destination outcome and where --out saved it;
 * each rate/alt result under the name it was given; the task's errors when it failed.
 */
export function taskLines(task: TaskView, options: TaskLinesOptions = {}): Line[] {
  const cost = costOf(task);
  const lines: Line[] = [
    [
      { text: task.id, bold: true },
      { text: ` ${task.type} ` },
      { text: task.status, tone: tone(task.status) },
      { text: `${options.elapsed ? ` ${options.elapsed}` : ''}${cost !== undefined && task.status !== 'pending' ? `  cost ${cost} USD` : ''}` },
    ],
  ];
  if (task.type === 'image.generate' && task.result?.magic_prompt) {
    lines.push([{ text: `  prompt rewritten: ${task.result.magic_prompt.positive}` }]);
    if (task.result.magic_prompt.negative) lines.push([{ text: `  negative prompt rewritten: ${task.result.magic_prompt.negative}` }]);
  }
  for (const [i, image] of imagesOf(task).entries()) lines.push(...imageLines(image, i + 1));
  for (const r of urlResultsOf(task)) lines.push(urlResultLine(r, options.files));
  for (const e of task.status === 'failed' ? errorsOf(task) : []) lines.push([{ text: '  ' }, { text: `✗ ${code(e)}`, tone: 'bad' }]);
  return lines;
}

/** Lines as plain text (no colour). */
export const plainText = (lines: Line[]): string => lines.map((line) => line.map((s) => s.text).join('')).join('\n');

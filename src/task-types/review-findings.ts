import { usableText } from '../domain/ocr-text.js';
import type { ImageQuality } from '../media/quality.js';
import { type BuiltinCheck, isTextCheck, parseCriterion, quotedPhrases, readingContains } from './review-criteria.js';

/** What review reports per check. */
export interface Finding {
  criterion: string;
  passed: boolean;
  note: string;
}

/** The thresholds of the embedded checks (config `review`). */
export interface ReviewThresholds {
  minShortSide: number;
  minSharpness: number;
  maxClipped: number;
  brightness: [number, number];
}

/** The providers a review can use now. */
export interface ReviewAbilities {
  nsfw: boolean;
  ocr: boolean;
  judge: boolean;
}

/** What one review does: the checks measured offline (in findings order) and what the judge is asked. */
export interface ReviewPlan {
  measured: { criterion: string; check: BuiltinCheck }[];
  /** The criteria the vision judge answers, in the order asked. */
  judged: string[];
  /** Whether the judge is asked how well the image matches the prompt. */
  judgePrompt: boolean;
  /** A prompt was given but there is no judge: the summary says adherence was not judged. */
  promptUnjudged: boolean;
}

export const PROMPT_CRITERION = 'matches the prompt';

const GROUP: Record<BuiltinCheck['kind'], number> = {
  resolution: 0,
  sharpness: 1,
  exposure: 2,
  sfw: 3,
  'no-text': 4,
  'has-text': 4,
  text: 4,
};
const DEFAULTS: { criterion: string; check: BuiltinCheck }[] = [
  { criterion: 'resolution', check: { kind: 'resolution' } },
  { criterion: 'sharp focus', check: { kind: 'sharpness' } },
  { criterion: 'exposure', check: { kind: 'exposure', side: 'both' } },
  { criterion: 'safe for work', check: { kind: 'sfw' } },
];

/**
 * Which check answers each criterion. A criterion in the offline vocabulary whose provider is
 * here (the nsfw rater for "safe for work", the OCR for text checks) is measured, and replaces
 * the default finding of its check; any other criterion goes to the judge. The prompt's quoted
 * phrases are text checks when there is an OCR.
 */
export function planReview(request: { prompt?: string; criteria?: string[] }, can: ReviewAbilities): ReviewPlan {
  const asked: { criterion: string; check: BuiltinCheck }[] = [];
  const judged: string[] = [];
  for (const criterion of request.criteria ?? []) {
    const check = parseCriterion(criterion);
    const measurable = check !== null && (check.kind === 'sfw' ? can.nsfw : isTextCheck(check) ? can.ocr : true);
    if (measurable) asked.push({ criterion: criterion.trim(), check });
    else judged.push(criterion.trim());
  }
  const replaced = new Set(asked.map(({ check }) => GROUP[check.kind]));
  const defaults = DEFAULTS.filter(
    ({ check }) => !replaced.has(GROUP[check.kind]) && (check.kind !== 'sfw' || can.nsfw),
  );
  const texts = new Set(asked.flatMap(({ check }) => (check.kind === 'text' ? [check.text.toLowerCase()] : [])));
  const fromPrompt = can.ocr
    ? quotedPhrases(request.prompt ?? '')
        .filter((text) => !texts.has(text.toLowerCase()) && texts.add(text.toLowerCase()))
        .map((text) => ({ criterion: `text "${text}"`, check: { kind: 'text', text } as BuiltinCheck }))
    : [];
  // A stable sort keeps the order asked within a group, defaults first.
  const measured = [...defaults, ...asked, ...fromPrompt].sort((a, b) => GROUP[a.check.kind] - GROUP[b.check.kind]);
  const prompt = Boolean(request.prompt);
  return { measured, judged, judgePrompt: prompt && can.judge, promptUnjudged: prompt && !can.judge };
}

/** What the offline checks read: the pixels, the nsfw level, the OCR reading. */
export interface Observations {
  quality: ImageQuality;
  nsfwLevel?: string;
  reading?: { text: string; confidence: number };
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));
const percent = (share: number) => `${round(share * 100)}%`;
const quote = (text: string) => `"${text.length > 60 ? `${text.slice(0, 57)}…` : text}"`;

/** One measured finding: passed or not, and a note stating the figure and the threshold. */
export function measure(
  check: BuiltinCheck,
  seen: Observations,
  limits: ReviewThresholds,
): { passed: boolean; note: string } {
  const q = seen.quality;
  switch (check.kind) {
    case 'resolution': {
      const size = `${q.width}×${q.height}`;
      if (check.minWidth !== undefined && check.minHeight !== undefined) {
        const passed = q.width >= check.minWidth && q.height >= check.minHeight;
        return {
          passed,
          note: `${size}, ${passed ? 'at least' : 'smaller than'} ${check.minWidth}×${check.minHeight}`,
        };
      }
      const short = Math.min(q.width, q.height);
      const passed = short >= limits.minShortSide;
      return {
        passed,
        note: `${size}: the shorter side, ${short} px, is ${passed ? 'at least' : 'below'} ${limits.minShortSide}${passed ? '' : ': too small'}`,
      };
    }
    case 'sharpness': {
      const passed = q.sharpness >= limits.minSharpness;
      return {
        passed,
        note: `variance of the Laplacian ${round(q.sharpness)}, ${passed ? 'at least' : 'below'} ${limits.minSharpness}${passed ? '' : ': the image looks blurred'}`,
      };
    }
    case 'exposure': {
      const [low, high] = limits.brightness;
      const problems: string[] = [];
      const under = check.side !== 'over';
      const over = check.side !== 'under';
      if (under && q.brightness < low)
        problems.push(`mean brightness ${round(q.brightness)} is below ${low}: underexposed`);
      if (over && q.brightness > high)
        problems.push(`mean brightness ${round(q.brightness)} is above ${high}: overexposed`);
      if (under && q.shadows > limits.maxClipped)
        problems.push(`${percent(q.shadows)} of pixels are clipped to black, more than ${percent(limits.maxClipped)}`);
      if (over && q.highlights > limits.maxClipped)
        problems.push(
          `${percent(q.highlights)} of pixels are clipped to white, more than ${percent(limits.maxClipped)}`,
        );
      if (problems.length) return { passed: false, note: problems.join('; ') };
      const clipped = [under ? `shadows ${percent(q.shadows)}` : '', over ? `highlights ${percent(q.highlights)}` : '']
        .filter(Boolean)
        .join(', ');
      return {
        passed: true,
        note: `mean brightness ${round(q.brightness)} (within ${low}–${high}); clipped ${clipped} (at most ${percent(limits.maxClipped)})`,
      };
    }
    case 'sfw': {
      const passed = seen.nsfwLevel === 'sfw';
      return { passed, note: `the nsfw rater says ${seen.nsfwLevel ?? 'nothing'}` };
    }
    case 'no-text':
    case 'has-text': {
      const text = seen.reading ? usableText(seen.reading) : null;
      const found = text !== null;
      const note = found ? `legible text read: ${quote(text)}` : 'no legible text read';
      return { passed: check.kind === 'no-text' ? !found : found, note };
    }
    case 'text': {
      const reading = seen.reading?.text.replace(/\s+/g, ' ').trim() ?? '';
      const passed = readingContains(reading, check.text);
      const note = passed
        ? `the text ${quote(check.text)} was read`
        : `the text ${quote(check.text)} was not read (${reading ? `read: ${quote(reading)}` : 'no text read'})`;
      return { passed, note };
    }
  }
}

/** The result of a review (see ReviewResult). */
export interface Review {
  verdict: 'pass' | 'fail';
  score: number;
  findings: Finding[];
  summary: string;
}

/**
 * Findings in order (measured checks, "matches the prompt", then the judged criteria), the
 * score (the mean over findings of 1 or 0, "matches the prompt" counting its judged score), the
 * verdict (pass iff every finding passed) and a summary made here, the judge's appended.
 */
export function assembleReview(
  measured: Finding[],
  judged: { prompt?: { passed: boolean; score: number; note: string }; findings: Finding[]; summary?: string },
  options: { promptUnjudged: boolean },
): Review {
  const promptFinding = judged.prompt
    ? [{ criterion: PROMPT_CRITERION, passed: judged.prompt.passed, note: judged.prompt.note }]
    : [];
  const findings = [...measured, ...promptFinding, ...judged.findings];
  const points = findings.map((f) =>
    f.criterion === PROMPT_CRITERION && judged.prompt && f === promptFinding[0]
      ? judged.prompt.score
      : f.passed
        ? 1
        : 0,
  );
  const score = findings.length ? Math.round((points.reduce((sum, p) => sum + p, 0) / findings.length) * 100) / 100 : 0;
  const failed = findings.filter((f) => !f.passed);
  const sentences = [
    failed.length === 0
      ? `Passed all ${findings.length} checks.`
      : `Passed ${findings.length - failed.length} of ${findings.length} checks; failed: ${failed.map((f) => `${f.criterion} (${f.note.length > 120 ? `${f.note.slice(0, 117)}…` : f.note})`).join(', ')}.`,
  ];
  if (options.promptUnjudged) sentences.push('Prompt adherence was not judged (no vision provider).');
  if (judged.summary?.trim()) sentences.push(judged.summary.trim());
  return { verdict: failed.length === 0 ? 'pass' : 'fail', score, findings, summary: sentences.join(' ') };
}

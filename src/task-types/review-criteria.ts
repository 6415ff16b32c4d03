/**
 * The criteria the embedded reviewer understands (image.review): a user's criterion, folded
 * (trimmed, lowercase, punctuation to spaces), is one of a small vocabulary of phrasings for a
 * check measured offline; anything else is free text, for the vision judge.
 */

/** A built-in check a criterion maps to. */
export type BuiltinCheck =
  | { kind: 'resolution'; minWidth?: number; minHeight?: number }
  | { kind: 'sharpness' }
  | { kind: 'exposure'; side: 'both' | 'over' | 'under' }
  | { kind: 'sfw' }
  | { kind: 'no-text' }
  | { kind: 'has-text' }
  | { kind: 'text'; text: string };

/** The checks that need the OCR (their own finding group, "text checks"). */
export const isTextCheck = (check: BuiltinCheck): boolean =>
  check.kind === 'no-text' || check.kind === 'has-text' || check.kind === 'text';

/** Trimmed, lowercase, every run of punctuation or spaces one space (× kept for sizes). */
export const fold = (text: string): string =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}×]+/gu, ' ')
    .trim();

const PHRASES: Record<string, BuiltinCheck> = {};
const phrases = (check: BuiltinCheck, ...texts: string[]) => {
  for (const text of texts) PHRASES[fold(text)] = check;
};
phrases(
  { kind: 'resolution' },
  'resolution',
  'high resolution',
  'good resolution',
  'hi res',
  'high res',
  'hi-res',
  'high-res',
  'not low resolution',
  'not pixelated',
);
phrases(
  { kind: 'sharpness' },
  'sharp focus',
  'in focus',
  'sharp',
  'not blurry',
  'no blur',
  'not blurred',
  'sharp image',
  'focused',
  'well focused',
  'crisp',
);
phrases(
  { kind: 'exposure', side: 'both' },
  'exposure',
  'well exposed',
  'good exposure',
  'correct exposure',
  'properly exposed',
  'correctly exposed',
  'not too dark or too bright',
);
phrases(
  { kind: 'exposure', side: 'over' },
  'not overexposed',
  'not over exposed',
  'no blown highlights',
  'not too bright',
);
phrases(
  { kind: 'exposure', side: 'under' },
  'not underexposed',
  'not under exposed',
  'no crushed shadows',
  'not too dark',
);
phrases({ kind: 'sfw' }, 'safe for work', 'sfw', 'no nudity', 'not nsfw', 'family friendly');
phrases(
  { kind: 'no-text' },
  'no text',
  'without text',
  'text free',
  'no visible text',
  'no legible text',
  'no words',
  'no writing',
);
phrases(
  { kind: 'has-text' },
  'legible text',
  'contains text',
  'has text',
  'readable text',
  'text is legible',
  'text is readable',
  'with text',
);

/** `text "X"`, `contains the text "X"`, `shows the text "X"` (straight or curly quotes). */
const QUOTED_TEXT = /^(?:(?:contains|shows|has|includes|reads)\s+(?:the\s+)?)?text\s*:?\s*["“”]([^"“”]+)["“”]$/i;
/** `at least 1024x768`, `minimum 1024 x 768 px`, `at least 1024×768 pixels`. */
const AT_LEAST = /^(?:at least|minimum|min|no smaller than) (\d{1,6}) ?(?:x|×) ?(\d{1,6})(?: px| pixels)?$/;

/** The built-in check a criterion asks for, or null: free text (the vision judge's). */
export function parseCriterion(criterion: string): BuiltinCheck | null {
  const quoted = QUOTED_TEXT.exec(criterion.trim());
  if (quoted && fold(quoted[1])) return { kind: 'text', text: quoted[1].trim() };
  const folded = fold(criterion);
  const size = AT_LEAST.exec(folded.replace(/(\d) ?x ?(\d)/, '$1x$2'));
  if (size) return { kind: 'resolution', minWidth: Number(size[1]), minHeight: Number(size[2]) };
  return PHRASES[folded] ?? null;
}

/** Every double-quoted phrase of a prompt (straight or curly quotes): text the image should show. */
export function quotedPhrases(prompt: string): string[] {
  return [...prompt.matchAll(/["“]([^"“”]{1,200})["”]/g)]
    .map((m) => m[1].trim())
    .filter((text) => fold(text).length > 0);
}

/** Whether an OCR reading contains `wanted`, case- and punctuation-insensitively. */
export const readingContains = (reading: string, wanted: string): boolean =>
  ` ${fold(reading)} `.includes(` ${fold(wanted)} `);

/** The phrasings understood offline, for the error that asks for a vision provider. */
export const OFFLINE_PHRASINGS =
  '"sharp focus", "in focus", "not blurry"; "well exposed", "not overexposed", "not underexposed"; "high resolution", "at least WxH"; "safe for work", "no nudity"; "no text", "legible text", text "X"';

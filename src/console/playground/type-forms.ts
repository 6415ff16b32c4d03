import { PRIORITY } from '../../domain/scheduling.js';
import { SIZE_PRESETS } from '../../domain/sizes.js';
import { REVIEW_LIMITS } from '../../task-types/image-review.js';
import { LIMITS } from '../../task-types/request-parts.js';
import type { FieldSpec, FormContext, Option, TypeForm } from './field-specs.js';

const plain = (values: readonly string[]): Option[] => values.map((value) => ({ value, label: value }));

const modelOptions = (ids: string[], defaultModel?: string): Option[] => [
  { value: 'auto', label: defaultModel ? `auto (the default model, ${defaultModel})` : 'auto (the default model)' },
  ...plain(ids),
];

const destinationField = (): FieldSpec => ({
  kind: 'select',
  name: 'destination',
  label: 'Destination',
  path: ['destination'],
  options: (context: FormContext) => [
    { value: '', label: 'None: the service keeps the file' },
    ...plain(context.destinations),
  ],
  hint: 'Where the file is also written; create destinations on the Destinations page.',
});

const metadataField = (): FieldSpec => ({
  kind: 'json',
  name: 'metadata',
  label: 'Metadata (JSON object)',
  path: ['metadata'],
  hint: `Kept with the task and sent with its webhooks, at most ${LIMITS.metadataBytes} bytes. Example: {"order": 42}`,
});

/** Every create body’s priority (docs/scheduling.md#the-order). */
const priorityField = (): FieldSpec => ({
  kind: 'number',
  name: 'priority',
  label: 'Priority',
  path: ['priority'],
  min: PRIORITY.min,
  max: PRIORITY.max,
  initial: String(PRIORITY.default),
  hint: `${PRIORITY.min} to ${PRIORITY.max}: higher starts first in its lane. At most the key’s Max priority (${PRIORITY.default} unless set on the Keys page).`,
});

const promptField = (name: string, label: string, required: boolean): FieldSpec => ({
  kind: 'text',
  name,
  label,
  path: [name],
  required,
  multiline: true,
});

/** The seed and the chosen model's declared parameters, as the generate forms (image, video) ask them. */
const seedAndParameters = (seedHint: string, section: 'models' | 'videoModels'): FieldSpec[] => [
  { kind: 'number', name: 'seed', label: 'Seed', path: ['seed'], min: 0, max: 2 ** 32 - 1, hint: seedHint },
  { kind: 'parameters', name: 'parameters', label: 'Parameters', path: ['parameters'], section },
];

const GENERATE: TypeForm = {
  type: 'image.generate',
  title: 'Generate images',
  description: 'Images from a prompt, one item per image, charged per image made.',
  fields: [
    promptField('prompt', 'Prompt', true),
    promptField('negative_prompt', 'Negative prompt', false),
    {
      kind: 'select',
      name: 'model',
      label: 'Model',
      path: ['model'],
      options: (c) => modelOptions(c.models, c.defaultModel),
    },
    {
      kind: 'select',
      name: 'size',
      label: 'Size',
      path: ['size'],
      options: () => plain(SIZE_PRESETS),
      hint: 'A preset or an aspect ratio; _4k sizes need a model with 4K output.',
    },
    { kind: 'number', name: 'count', label: 'Count', path: ['count'], min: 1, max: LIMITS.count, initial: '1' },
    {
      kind: 'select',
      name: 'output_format',
      label: 'Output format',
      path: ['output', 'format'],
      options: () => plain(['webp', 'png', 'jpg']),
    },
    {
      kind: 'number',
      name: 'output_quality',
      label: 'Output quality',
      path: ['output', 'quality'],
      min: 1,
      max: 100,
      placeholder: '80',
    },
    ...seedAndParameters('Empty: a random seed, reported on each image.', 'models'),
    {
      kind: 'lines',
      name: 'inputs',
      label: 'Input images',
      path: ['inputs'],
      hint: 'Image URLs or uploaded img_ ids, one a line (for models that take inputs).',
    },
    { kind: 'checkbox', name: 'rating', label: 'Rate each image (nsfw_sfw)', path: ['rating'], value: true },
    destinationField(),
    metadataField(),
  ],
};

const RATE: TypeForm = {
  type: 'image.rate',
  title: 'Rate images',
  description: 'A rating level for each image URL, on the nsfw_sfw scale or on your own levels.',
  noWait: true,
  fields: [
    { kind: 'select', name: 'mode', label: 'Mode', path: ['mode'], options: () => plain(['nsfw_sfw', 'custom']) },
    {
      kind: 'lines',
      name: 'urls',
      label: 'Image URLs',
      path: ['urls'],
      required: true,
      hint: `One a line, at most ${LIMITS.urls}.`,
    },
    {
      kind: 'levels',
      name: 'levels',
      label: 'Custom levels',
      path: ['levels'],
      when: (fields) => fields.mode === 'custom',
      hint: `Custom mode only: ${LIMITS.levelsMin} to ${LIMITS.levelsMax} levels, one a line as "value: description", e.g. "safe: no people".`,
    },
  ],
};

const ALT: TypeForm = {
  type: 'image.alt',
  title: 'Alt text',
  description: 'A short description of each image, for the alt attribute.',
  noWait: true,
  fields: [
    {
      kind: 'lines',
      name: 'urls',
      label: 'Image URLs',
      path: ['urls'],
      required: true,
      hint: `One a line, at most ${LIMITS.urls}.`,
    },
  ],
};

const REMOVE_BACKGROUND: TypeForm = {
  type: 'image.remove_background',
  title: 'Remove a background',
  description: 'The image cut out with a transparent background.',
  fields: [
    {
      kind: 'text',
      name: 'url',
      label: 'Image URL',
      path: ['url'],
      required: true,
      hint: 'An http(s) URL, a service URL or an uploaded img_ id.',
    },
    {
      kind: 'select',
      name: 'output_format',
      label: 'Output format',
      path: ['output', 'format'],
      options: () => [{ value: '', label: 'As the remover makes it' }, ...plain(['png', 'webp'])],
    },
    destinationField(),
    metadataField(),
  ],
};

const REVIEW: TypeForm = {
  type: 'image.review',
  title: 'Review an image',
  description: 'Technical checks, adherence to a prompt and your criteria: a verdict, a score and findings.',
  noWait: true,
  fields: [
    {
      kind: 'text',
      name: 'url',
      label: 'Image URL',
      path: ['url'],
      required: true,
      hint: 'An http(s) URL, a service URL or an uploaded img_ id.',
    },
    promptField('prompt', 'Prompt it was made from', false),
    {
      kind: 'lines',
      name: 'criteria',
      label: 'Criteria',
      path: ['criteria'],
      hint: `One a line, at most ${REVIEW_LIMITS.criteria}, e.g. "sharp focus", "no text", "safe for work" (other wording needs a vision provider).`,
    },
    metadataField(),
  ],
};

/** Video sizes are the image presets without 4K. */
const VIDEO_SIZES = SIZE_PRESETS.filter((preset) => !preset.endsWith('_4k'));

const VIDEO: TypeForm = {
  type: 'video.generate',
  title: 'Generate a video',
  description: 'Short videos from a prompt (and an optional first frame), charged per video made.',
  fields: [
    promptField('prompt', 'Prompt', true),
    promptField('negative_prompt', 'Negative prompt', false),
    { kind: 'select', name: 'model', label: 'Model', path: ['model'], options: (c) => modelOptions(c.videoModels) },
    { kind: 'select', name: 'size', label: 'Size', path: ['size'], options: () => plain(VIDEO_SIZES) },
    { kind: 'number', name: 'count', label: 'Count', path: ['count'], min: 1, max: LIMITS.videoCount, initial: '1' },
    {
      kind: 'number',
      name: 'duration_s',
      label: 'Duration (seconds)',
      path: ['duration_s'],
      min: 1,
      max: LIMITS.videoSeconds,
      placeholder: '4',
    },
    {
      kind: 'number',
      name: 'fps',
      label: 'Frames per second',
      path: ['fps'],
      min: LIMITS.videoFps[0],
      max: LIMITS.videoFps[1],
      placeholder: '24',
    },
    {
      kind: 'select',
      name: 'format',
      label: 'Format',
      path: ['format'],
      options: () => [
        { value: 'mp4', label: 'mp4 (H.264)' },
        { value: 'webp', label: 'webp (animated)' },
      ],
    },
    ...seedAndParameters('Empty: a random seed.', 'videoModels'),
    {
      kind: 'text',
      name: 'first_frame',
      label: 'First frame',
      path: ['inputs'],
      asList: true,
      hint: 'An image URL or img_ id to start from (optional).',
    },
    destinationField(),
    metadataField(),
  ],
};

/**
 * The console's forms, in the order the playground offers them; each ends with the priority every create body takes.
 */
const KNOWN_FORMS: TypeForm[] = [GENERATE, RATE, ALT, REMOVE_BACKGROUND, REVIEW, VIDEO].map((form) => ({
  ...form,
  fields: [...form.fields, priorityField()],
}));

/** The form of a registered type: its own, or (a type the console has no form for) the JSON body alone. */
export function formFor(type: string): TypeForm {
  return (
    KNOWN_FORMS.find((form) => form.type === type) ?? {
      type,
      title: type,
      description: 'This task type has no form of its own: write its body as JSON below.',
      fields: [],
    }
  );
}

/** The registered types in the playground's order: those with a form first, then the others by name. */
export function orderTypes(types: string[]): string[] {
  const rank = (type: string) => {
    const index = KNOWN_FORMS.findIndex((form) => form.type === type);
    return index === -1 ? KNOWN_FORMS.length : index;
  };
  return [...types].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

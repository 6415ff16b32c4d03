import { z } from 'zod';
import { parameterDeclarationProblems, STRING_PARAMETER_MAX } from '../../domain/model-parameters.js';
import { UsdString } from './setting-fields.js';

// Image and video models: providers, ComfyUI workflows and bindings, declared parameters, prices, capabilities.

/** A ComfyUI node input, as `"<node id>.inputs.<name>"` (checked against the workflow at load). */
const BindingPath = z.string().regex(/^[^.\s]+\.inputs\.[^.\s]+$/, 'a node input such as "6.inputs.text"');
/**
 * Which node input of a ComfyUI workflow receives what; every binding but `prompt` is optional,
 * and an unbound input (or a value the request leaves out) keeps the workflow's own value.
 */
const Bindings = z.strictObject({
  prompt: BindingPath.describe(
    'The node input, as "<node id>.inputs.<name>", that receives the prompt (of an image, the magic prompt\'s when one is asked for); the one binding required.',
  ),
  negativePrompt: BindingPath.optional().describe(
    'The node input that receives the negative prompt; unbound, or an item without one: the workflow keeps its own text.',
  ),
  seed: BindingPath.optional().describe(
    "The node input that receives the item's seed: the request's seed (or a random one) plus the item's index, modulo 2^32.",
  ),
  width: BindingPath.optional().describe(
    'The node input that receives the width, in pixels, of the size the item is made at.',
  ),
  height: BindingPath.optional().describe(
    'The node input that receives the height, in pixels, of the size the item is made at.',
  ),
  batchSize: BindingPath.optional().describe('The node input that receives 1: one image per item.'),
  images: z
    .array(BindingPath)
    .max(20)
    .optional()
    .describe(
      'LoadImage inputs, one per input image in request order: each receives the name ComfyUI gave its upload (at most 20). capabilities.maxInputs may not exceed their number.',
    ),
});
/**
 * A ComfyUI workflow in API format ("Export (API)"), its path relative to the config file's folder, and its bindings.
 */
const WorkflowFields = {
  workflow: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A ComfyUI workflow in API format ("Export (API)"): its file, relative to the config file\'s folder (the working folder without one). Required, with bindings, when a provider of the model is of type comfyui, refused otherwise; read and checked against the bindings at load.',
    ),
  bindings: Bindings.optional(),
  parameters: z
    .record(
      z
        .string()
        .regex(
          /^[A-Za-z][A-Za-z0-9_]{0,39}$/,
          'a parameter name (a letter, then letters, digits or _; up to 40 characters)',
        ),
      z
        .strictObject({
          binding: BindingPath.describe(
            'The node input, as "<node id>.inputs.<name>", that receives the value (never shown to clients).',
          ),
          type: z
            .enum(['integer', 'number', 'string', 'boolean', 'enum'])
            .describe('What a request may send: an integer, a number, a string, true or false, or one of `values`.'),
          min: z.number().optional().describe('integer and number: the smallest value.'),
          max: z.number().optional().describe('integer and number: the largest value.'),
          values: z
            .array(z.string().min(1).max(STRING_PARAMETER_MAX))
            .max(500)
            .optional()
            .describe('enum: the values a request may choose (such as sampler, checkpoint or LoRA names).'),
          maxLength: z
            .number()
            .int()
            .min(1)
            .max(STRING_PARAMETER_MAX)
            .optional()
            .describe(`string: the longest value, in characters. Default (and most): ${STRING_PARAMETER_MAX}.`),
          default: z
            .union([z.string(), z.number(), z.boolean()])
            .describe(
              'The value bound when a request leaves the parameter out; it must be a value the parameter takes.',
            ),
          description: z.string().max(500).optional().describe('Shown to clients by GET /models (GET /video/models).'),
          price: z
            .strictObject({ perUnit: UsdString.describe('USD per unit of the value.') })
            .optional()
            .describe(
              "integer and number: value × perUnit USD is added to each image's price (to each second's of a video), with the request's value or the default.",
            ),
        })
        .superRefine((parameter, ctx) => {
          for (const message of parameterDeclarationProblems(parameter)) ctx.addIssue({ code: 'custom', message });
        }),
    )
    .optional()
    .describe(
      'ComfyUI models: values a request may set in `parameters: { … }`, by name, each bound into one node input (checked against the workflow at load; a name or node input of the built-in bindings is refused). GET /models lists them without their bindings. Each: { binding, type: integer | number | string | boolean | enum, min?, max?, values? (enum), maxLength? (string, at most 2000), default, description?, price?: { perUnit } }: docs/comfyui.md#parameters-per-request.',
    ),
  allowRawWorkflows: z
    .boolean()
    .default(false)
    .describe(
      "ComfyUI models: whether a request from a key with the scope workflow:raw may post a whole API-format graph in `workflow` (run instead of the model's own). Custom nodes can read files and run code on the server: see docs/comfyui.md#raw-graphs-trusted-keys.",
    ),
};

/** A model's providers: one name, or several tried in order. */
const ModelProviders = {
  provider: z
    .string()
    .min(1)
    .optional()
    .describe("The provider (a name in providers) that makes the model's output; or give providers."),
  providers: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe(
      "Providers (names in providers) that make the model's output, tried in order: each attempt starts at the next one, and a busy one is passed over (failover). Used instead of provider when both are given.",
    ),
};
/** What the model's provider gets with every item, as it is. */
const ModelOptions = (made: string, readers: string) =>
  z
    .record(z.string(), z.unknown().describe('One option: any JSON value, passed on as it is.'))
    .default({})
    .describe(`Options passed as they are to the model's provider with every ${made}; ${readers}`);

export const ModelSchema = z.strictObject({
  ...ModelProviders,
  ...WorkflowFields,
  outputs: z
    .array(z.string().min(1).max(64))
    .min(1)
    .max(16)
    .optional()
    .describe(
      "ComfyUI models: the output nodes (ids) whose files are the task's items, in this order: each run of the workflow makes one item per node, so a request's count × their number items. Absent: every image save node (SaveImage, SaveAnimatedWEBP, …; never PreviewImage). Each must be a node of the workflow (checked at load).",
    ),
  price: z.strictObject({
    perImage: UsdString.describe('USD per image made, as a decimal string ("0.002"; up to 6 decimals).'),
    perInput: UsdString.describe('USD per input image, added to the price of each image made.'),
    perImage4k: UsdString.optional().describe(
      'USD per image at 4K scale (the _4k sizes), instead of perImage, when supports4k is true; absent: perImage.',
    ),
  }),
  capabilities: z.strictObject({
    maxInputs: z
      .number()
      .int()
      .min(0)
      .max(20)
      .describe(
        'The most input images a request may send (0..20); more fail validation (VALIDATION_ERROR). Served by ComfyUI: at most the number of bindings.images.',
      ),
    supports4k: z
      .boolean()
      .describe('Whether the model makes 4K output; false: a request at 4K scale fails with CAPABILITY_NOT_SUPPORTED.'),
    negativePrompt: z
      .boolean()
      .describe(
        'Whether requests may send a negative_prompt; false: one that does fails validation (VALIDATION_ERROR).',
      ),
    nativeSize: z
      .string()
      .regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1024x1024')
      .optional()
      .describe('What `size: auto` resolves to, as WxH. Absent: the 1:1 base size.'),
  }),
  options: ModelOptions(
    'image',
    'of the built-in providers only the placeholder reads one: `fail: { code, every }` makes every Nth image fail with that code, to exercise item failures.',
  ),
});

/**
 * A video model: its providers (tried in order, like image models), a price per second of
 * footage (plus one per input image), and what it can make. Requests are capped by it: a
 * longer duration or a higher fps than it takes fails validation; a size larger than
 * `maxSize` is scaled down to fit.
 */
export const VideoModelSchema = z.strictObject({
  ...ModelProviders,
  workflow: WorkflowFields.workflow,
  parameters: WorkflowFields.parameters,
  allowRawWorkflows: WorkflowFields.allowRawWorkflows,
  /** As image models' bindings, plus the frame rate and the number of frames (duration × fps). */
  bindings: Bindings.extend({
    // A video item binds no batch size: the workflow keeps its own.
    batchSize: Bindings.shape.batchSize.describe(
      'Accepted, but a video job binds no value to it: the workflow keeps its own.',
    ),
    images: Bindings.shape.images.describe(
      'LoadImage inputs: the first receives the name ComfyUI gave the upload of the input image (the first frame). capabilities.maxInputs may not exceed their number.',
    ),
    fps: BindingPath.optional().describe("The node input that receives the frame rate (the request's fps)."),
    frames: BindingPath.optional().describe(
      'The node input that receives the number of frames: duration_s × fps, rounded, at least 1.',
    ),
  }).optional(),
  price: z.strictObject({
    perSecond: UsdString.describe(
      'USD per second of footage, as a decimal string; a video costs perSecond × duration_s + perInput × inputs.',
    ),
    perInput: UsdString.default('0').describe(
      'USD per input image (the first frame), added to the price of each video.',
    ),
  }),
  capabilities: z.strictObject({
    maxInputs: z
      .number()
      .int()
      .min(0)
      .max(1)
      .describe('Input images a request may send: 0, or 1 (the first frame); more fail validation (VALIDATION_ERROR).'),
    negativePrompt: z
      .boolean()
      .describe(
        'Whether requests may send a negative_prompt; false: one that does fails validation (VALIDATION_ERROR).',
      ),
    maxDurationS: z
      .number()
      .int()
      .min(1)
      .max(10)
      .describe('The longest clip, in seconds (1..10); a longer duration_s fails validation.'),
    maxFps: z.number().int().min(8).max(30).describe('The highest frame rate (8..30); a higher fps fails validation.'),
    maxSize: z
      .string()
      .regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1280x720')
      .describe(
        'The largest frame, as WxH (landscape; portrait sizes are capped by its transpose): a larger requested size is scaled down to fit, keeping its ratio.',
      ),
    nativeSize: z
      .string()
      .regex(/^\d{2,5}x\d{2,5}$/, 'a size such as 1280x720')
      .describe('What `size: auto` resolves to, as WxH.'),
  }),
  options: ModelOptions('video', 'none of the built-in video providers reads one.'),
});

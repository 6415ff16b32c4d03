// What each catalogued node does in the fake: values that stand for models, conditioning, latents
// and images, carrying what the save nodes need (size, batch, seed, text) to draw their files.
import { randomBytes } from 'node:crypto';
import { type Folders, type FolderType, inside } from './folders.js';
import { fakeImageColour, firstPixel, imageSize, type Rgb, renderAnimatedWebp, renderPng } from './images.js';

/**
 * A LATENT or IMAGE: pixel size (a multiple of 8 when a VAE made it), batch size, and what sampled
 * it, or the solid colour of each of its images when pixel nodes made or changed it.
 */
interface Picture {
  width: number;
  height: number;
  batch: number;
  seed?: number;
  text?: string;
  colours?: Rgb[];
}

/** The colour of image `i` of a batch. */
const colourOf = (picture: Picture, i: number): Rgb =>
  picture.colours?.[i] ?? fakeImageColour(picture.seed ?? 0, picture.text ?? '', i);
const coloursOf = (picture: Picture): Rgb[] => Array.from({ length: picture.batch }, (_, i) => colourOf(picture, i));

export interface FileRef {
  filename: string;
  subfolder: string;
  type: FolderType;
}

/** What an output node shows: the `output` of its `executed` message and of its history entry. */
export type Ui = Record<string, unknown[]>;

export interface NodeResult {
  outputs: unknown[];
  ui?: Ui;
}

export interface NodeEnv {
  folders: Folders;
  /**
   * Runs a progress bar's steps (progress messages, previews, interruption, the test's controls):
   * a sampler's, capped at the fake's maxSteps and paced by its stepDelayMs, or, with `stepMs`,
   * every step that long.
   */
  sample(steps: number, stepMs?: number): Promise<void>;
}

const down8 = (n: number) => Math.floor(n / 8) * 8;

async function saveImages(env: NodeEnv, images: Picture, prefix: string, type: FolderType): Promise<Ui> {
  const { subfolder, base, next } = env.folders.savePath(type, prefix);
  const saved: FileRef[] = [];
  for (let i = 0; i < images.batch; i++) {
    const filename = `${base}_${String(next()).padStart(5, '0')}_.png`;
    env.folders.put(
      type,
      inside(subfolder, filename)!,
      await renderPng(images.width, images.height, colourOf(images, i)),
    );
    saved.push({ filename, subfolder, type });
  }
  return { images: saved };
}

async function saveAnimatedWebp(env: NodeEnv, images: Picture, inputs: Record<string, any>): Promise<Ui> {
  const { subfolder, base, next } = env.folders.savePath('output', inputs.filename_prefix);
  const filename = `${base}_${String(next()).padStart(5, '0')}_.webp`;
  const frames = coloursOf(images);
  env.folders.put(
    'output',
    inside(subfolder, filename)!,
    await renderAnimatedWebp(images.width, images.height, frames, inputs.fps, inputs.lossless, inputs.quality),
  );
  // SaveAnimatedWEBP lists its file under `images`, with `animated: [true]` when it has several frames.
  return { images: [{ filename, subfolder, type: 'output' }], animated: [images.batch !== 1] };
}

/** Runs one node on its inputs (links already replaced by the values they point at). */
export async function runNode(classType: string, inputs: Record<string, any>, env: NodeEnv): Promise<NodeResult> {
  switch (classType) {
    case 'CheckpointLoaderSimple':
      return { outputs: [{ ckpt: inputs.ckpt_name }, { ckpt: inputs.ckpt_name }, { ckpt: inputs.ckpt_name }] };
    case 'CLIPTextEncode':
      return { outputs: [{ text: inputs.text }] };
    case 'EmptyLatentImage':
      return {
        outputs: [
          { width: down8(inputs.width), height: down8(inputs.height), batch: inputs.batch_size } satisfies Picture,
        ],
      };
    case 'LoadImage': {
      const file = env.folders.annotatedFile(inputs.image)!;
      const size = await imageSize(file);
      return { outputs: [{ ...size, batch: 1, colours: [await firstPixel(file)] } satisfies Picture, { mask: true }] };
    }
    case 'EmptyImage': {
      const c = inputs.color as number;
      const rgb: Rgb = [(c >> 16) & 0xff, (c >> 8) & 0xff, c & 0xff];
      return {
        outputs: [
          {
            width: inputs.width,
            height: inputs.height,
            batch: inputs.batch_size,
            colours: Array.from({ length: inputs.batch_size }, () => rgb),
          } satisfies Picture,
        ],
      };
    }
    case 'ImageInvert':
      return {
        outputs: [
          {
            ...inputs.image,
            colours: coloursOf(inputs.image).map((rgb) => rgb.map((v) => 255 - v) as Rgb),
          } satisfies Picture,
        ],
      };
    case 'ImageScale':
      return {
        outputs: [
          {
            ...inputs.image,
            width: inputs.width || inputs.image.width,
            height: inputs.height || inputs.image.height,
          } satisfies Picture,
        ],
      };
    case 'RepeatImageBatch': {
      const colours = coloursOf(inputs.image);
      return {
        outputs: [
          {
            ...inputs.image,
            batch: colours.length * inputs.amount,
            colours: Array.from({ length: inputs.amount }, () => colours).flat(),
          } satisfies Picture,
        ],
      };
    }
    case 'PrimitiveString':
      return { outputs: [inputs.value] };
    case 'ImgtaskTestSteps': {
      await env.sample(inputs.steps, inputs.step_seconds * 1000);
      // As the custom node: image i of n dimmed by i / 2n, so an animation's frames differ.
      const colours = coloursOf(inputs.image).map(
        (rgb, i, all) => rgb.map((v) => Math.round(v * (1 - i / (2 * all.length)))) as Rgb,
      );
      return { outputs: [{ ...inputs.image, colours } satisfies Picture] };
    }
    case 'ImgtaskTestFail':
      throw new Error(inputs.message);
    case 'VAEEncode':
      return {
        outputs: [{ ...inputs.pixels, width: down8(inputs.pixels.width), height: down8(inputs.pixels.height) }],
      };
    case 'KSampler':
      await env.sample(inputs.steps);
      // What the sampler draws replaces any colours its latent came with (an img2img input).
      return {
        outputs: [
          {
            width: inputs.latent_image.width,
            height: inputs.latent_image.height,
            batch: inputs.latent_image.batch,
            seed: inputs.seed,
            text: inputs.positive.text,
          } satisfies Picture,
        ],
      };
    case 'VAEDecode':
      return { outputs: [{ ...inputs.samples }] };
    case 'SaveImage':
      return { outputs: [], ui: await saveImages(env, inputs.images, inputs.filename_prefix, 'output') };
    case 'PreviewImage':
      return {
        outputs: [],
        ui: await saveImages(env, inputs.images, `ComfyUI_temp_${randomBytes(3).toString('hex').slice(0, 5)}`, 'temp'),
      };
    case 'SaveAnimatedWEBP':
      return { outputs: [], ui: await saveAnimatedWebp(env, inputs.images, inputs) };
    default:
      throw new Error(`the fake cannot run ${classType}`);
  }
}

// What each catalogued node does in the fake: values that stand for models, conditioning, latents
// and images, carrying what the save nodes need (size, batch, seed, text) to draw their files.
import { randomBytes } from 'node:crypto';
import { type Folders, type FolderType, inside } from './folders.js';
import { fakeImageColour, imageSize, renderAnimatedWebp, renderPng } from './images.js';

/** A LATENT or IMAGE: pixel size (a multiple of 8, as the VAE gives), batch size, and what sampled it. */
interface Picture {
  width: number;
  height: number;
  batch: number;
  seed?: number;
  text?: string;
}

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
  /** Runs the sampler's steps (progress messages, interruption, the test's controls). */
  sample(steps: number): Promise<void>;
}

const down8 = (n: number) => Math.floor(n / 8) * 8;

async function saveImages(env: NodeEnv, images: Picture, prefix: string, type: FolderType): Promise<Ui> {
  const { subfolder, base, next } = env.folders.savePath(type, prefix);
  const saved: FileRef[] = [];
  for (let i = 0; i < images.batch; i++) {
    const filename = `${base}_${String(next()).padStart(5, '0')}_.png`;
    env.folders.put(type, inside(subfolder, filename)!, await renderPng(images.width, images.height, fakeImageColour(images.seed ?? 0, images.text ?? '', i)));
    saved.push({ filename, subfolder, type });
  }
  return { images: saved };
}

async function saveAnimatedWebp(env: NodeEnv, images: Picture, inputs: Record<string, any>): Promise<Ui> {
  const { subfolder, base, next } = env.folders.savePath('output', inputs.filename_prefix);
  const filename = `${base}_${String(next()).padStart(5, '0')}_.webp`;
  const frames = Array.from({ length: images.batch }, (_, i) => fakeImageColour(images.seed ?? 0, images.text ?? '', i));
  env.folders.put('output', inside(subfolder, filename)!, await renderAnimatedWebp(images.width, images.height, frames, inputs.fps, inputs.lossless, inputs.quality));
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
      return { outputs: [{ width: down8(inputs.width), height: down8(inputs.height), batch: inputs.batch_size } satisfies Picture] };
    case 'LoadImage': {
      const size = await imageSize(env.folders.annotatedFile(inputs.image)!);
      return { outputs: [{ ...size, batch: 1 } satisfies Picture, { mask: true }] };
    }
    case 'VAEEncode':
      return { outputs: [{ ...inputs.pixels, width: down8(inputs.pixels.width), height: down8(inputs.pixels.height) }] };
    case 'KSampler':
      await env.sample(inputs.steps);
      return { outputs: [{ ...inputs.latent_image, seed: inputs.seed, text: inputs.positive.text } satisfies Picture] };
    case 'VAEDecode':
      return { outputs: [{ ...inputs.samples }] };
    case 'SaveImage':
      return { outputs: [], ui: await saveImages(env, inputs.images, inputs.filename_prefix, 'output') };
    case 'PreviewImage':
      return { outputs: [], ui: await saveImages(env, inputs.images, `ComfyUI_temp_${randomBytes(3).toString('hex').slice(0, 5)}`, 'temp') };
    case 'SaveAnimatedWEBP':
      return { outputs: [], ui: await saveAnimatedWebp(env, inputs.images, inputs) };
    default:
      throw new Error(`the fake cannot run ${classType}`);
  }
}

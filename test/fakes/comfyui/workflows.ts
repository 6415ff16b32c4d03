// Sample workflows in ComfyUI's API format (what "Export (API)" saves), using the fake's catalogue.
// Each call answers a fresh copy: ComfyUI converts literal inputs in place when it validates.
import type { Prompt } from './validate.js';

/**
 * ComfyUI's default graph: checkpoint, positive and negative prompts, empty latent, KSampler, VAE decode, SaveImage.
 */
export function txt2imgWorkflow(): Prompt {
  return {
    '3': {
      class_type: 'KSampler',
      inputs: {
        seed: 156680208700286,
        steps: 20,
        cfg: 8,
        sampler_name: 'euler',
        scheduler: 'normal',
        denoise: 1,
        model: ['4', 0],
        positive: ['6', 0],
        negative: ['7', 0],
        latent_image: ['5', 0],
      },
      _meta: { title: 'KSampler' },
    },
    '4': {
      class_type: 'CheckpointLoaderSimple',
      inputs: { ckpt_name: 'v1-5-pruned-emaonly-fp16.safetensors' },
      _meta: { title: 'Load Checkpoint' },
    },
    '5': {
      class_type: 'EmptyLatentImage',
      inputs: { width: 512, height: 512, batch_size: 1 },
      _meta: { title: 'Empty Latent Image' },
    },
    '6': {
      class_type: 'CLIPTextEncode',
      inputs: { text: 'beautiful scenery nature glass bottle landscape, purple galaxy bottle', clip: ['4', 1] },
      _meta: { title: 'CLIP Text Encode (Prompt)' },
    },
    '7': {
      class_type: 'CLIPTextEncode',
      inputs: { text: 'text, watermark', clip: ['4', 1] },
      _meta: { title: 'CLIP Text Encode (Prompt)' },
    },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] }, _meta: { title: 'VAE Decode' } },
    '9': {
      class_type: 'SaveImage',
      inputs: { filename_prefix: 'ComfyUI', images: ['8', 0] },
      _meta: { title: 'Save Image' },
    },
  } as Prompt;
}

/**
 * img2img: node "10" LoadImage (an uploaded file's name) through "11" VAEEncode into the KSampler, in place of the
 * empty latent.
 */
export function img2imgWorkflow(): Prompt {
  const { '5': _latent, ...graph } = txt2imgWorkflow() as Record<string, any>;
  graph['3'].inputs = { ...graph['3'].inputs, denoise: 0.6, latent_image: ['11', 0] };
  graph['10'] = { class_type: 'LoadImage', inputs: { image: 'example.png' }, _meta: { title: 'Load Image' } };
  graph['11'] = {
    class_type: 'VAEEncode',
    inputs: { pixels: ['10', 0], vae: ['4', 2] },
    _meta: { title: 'VAE Encode' },
  };
  return graph as Prompt;
}

/**
 * An animation: the txt2img graph sampling a batch of 8 frames, saved by SaveAnimatedWEBP (outputs under `images`,
 * `animated: [true]`).
 */
export function animatedWebpWorkflow(): Prompt {
  const graph = txt2imgWorkflow() as Record<string, any>;
  graph['5'].inputs.batch_size = 8;
  graph['9'] = {
    class_type: 'SaveAnimatedWEBP',
    inputs: { images: ['8', 0], filename_prefix: 'ComfyUI', fps: 8, lossless: false, quality: 80, method: 'default' },
    _meta: { title: 'SaveAnimatedWEBP' },
  };
  return graph as Prompt;
}

/**
 * Two outputs per run: the txt2img graph's SaveImage "9" (the sampled image, at the bound size)
 * and SaveImage "12" of the same image inverted ("10", ImageInvert) and scaled to 64×64 ("11"), so
 * a test can tell the two outputs' files apart by colour and size.
 */
export function twoOutputWorkflow(): Prompt {
  const graph = txt2imgWorkflow() as Record<string, any>;
  graph['10'] = { class_type: 'ImageInvert', inputs: { image: ['8', 0] }, _meta: { title: 'Invert Image' } };
  graph['11'] = {
    class_type: 'ImageScale',
    inputs: { image: ['10', 0], upscale_method: 'nearest-exact', width: 64, height: 64, crop: 'disabled' },
    _meta: { title: 'Upscale Image' },
  };
  graph['12'] = {
    class_type: 'SaveImage',
    inputs: { filename_prefix: 'inverted', images: ['11', 0] },
    _meta: { title: 'Save Image (inverted)' },
  };
  return graph as Prompt;
}

// The fake's node catalogue: a few of ComfyUI's built-in node classes, declared as their
// INPUT_TYPES / RETURN_TYPES / OUTPUT_NODE declare them (nodes.py, comfy_extras/nodes_images.py,
// comfy_extras/nodes_primitive.py), so validation and GET /object_info answer what a stock ComfyUI
// answers for them; and the two classes of test/fixtures/comfyui/custom_nodes/imgtask_test_nodes,
// which the opt-in real-server test installs.

/** One input's declaration, as INPUT_TYPES gives it: a type name or a combo's list of values, then its options. */
export type InputSpec = [type: string | string[], options?: Record<string, unknown>];

export interface NodeClass {
  input: { required: Record<string, InputSpec>; optional?: Record<string, InputSpec>; hidden?: Record<string, string> };
  /** RETURN_TYPES. */
  output: string[];
  outputName?: string[];
  /** OUTPUT_NODE: the node is executed because it is an output, and what it shows lands in history. */
  outputNode: boolean;
  category: string;
  description?: string;
  /**
   * The inputs the class's VALIDATE_INPUTS takes: ComfyUI skips the min/max/combo checks for them
   * and calls VALIDATE_INPUTS instead (LoadImage checks that its file exists).
   */
  validateInputs?: string[];
  /** python_module in /object_info. @default 'nodes' */
  module?: string;
}

/** comfy.samplers.KSampler.SAMPLERS and SCHEDULERS (a current ComfyUI's lists). */
const SAMPLERS = [
  'euler',
  'euler_cfg_pp',
  'euler_ancestral',
  'euler_ancestral_cfg_pp',
  'heun',
  'heunpp2',
  'dpm_2',
  'dpm_2_ancestral',
  'lms',
  'dpm_fast',
  'dpm_adaptive',
  'dpmpp_2s_ancestral',
  'dpmpp_2s_ancestral_cfg_pp',
  'dpmpp_sde',
  'dpmpp_sde_gpu',
  'dpmpp_2m',
  'dpmpp_2m_cfg_pp',
  'dpmpp_2m_sde',
  'dpmpp_2m_sde_gpu',
  'dpmpp_3m_sde',
  'dpmpp_3m_sde_gpu',
  'ddpm',
  'lcm',
  'ipndm',
  'ipndm_v',
  'deis',
  'res_multistep',
  'gradient_estimation',
  'er_sde',
  'seeds_2',
  'seeds_3',
  'ddim',
  'uni_pc',
  'uni_pc_bh2',
];
const SCHEDULERS = [
  'simple',
  'sgm_uniform',
  'karras',
  'exponential',
  'ddim_uniform',
  'beta',
  'normal',
  'linear_quadratic',
  'kl_optimal',
];
/** nodes.MAX_RESOLUTION. */
const MAX_RESOLUTION = 16384;
/** 0xffffffffffffffff, the seed's max, as the nearest double (JSON carries it as 18446744073709551615). */
const MAX_SEED = 2 ** 64 - 1;
const SAVE_HIDDEN = { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' };

/** Checkpoint files the fake pretends to have, unless a test names its own. */
export const DEFAULT_CHECKPOINTS = [
  'v1-5-pruned-emaonly-fp16.safetensors',
  'v1-5-pruned-emaonly.safetensors',
  'sd_xl_base_1.0.safetensors',
  'flux1-dev-fp8.safetensors',
];

/**
 * The catalogue, built per call because two combos are lists of files: CheckpointLoaderSimple's
 * checkpoints and LoadImage's files in the input folder (what has been uploaded so far).
 */
export function nodeCatalogue(checkpoints: string[], inputFiles: string[]): Record<string, NodeClass> {
  return {
    CheckpointLoaderSimple: {
      input: { required: { ckpt_name: [checkpoints] } },
      output: ['MODEL', 'CLIP', 'VAE'],
      outputNode: false,
      category: 'loaders',
    },
    CLIPTextEncode: {
      input: { required: { text: ['STRING', { multiline: true, dynamicPrompts: true }], clip: ['CLIP'] } },
      output: ['CONDITIONING'],
      outputNode: false,
      category: 'conditioning',
    },
    EmptyLatentImage: {
      input: {
        required: {
          width: ['INT', { default: 512, min: 16, max: MAX_RESOLUTION, step: 8 }],
          height: ['INT', { default: 512, min: 16, max: MAX_RESOLUTION, step: 8 }],
          batch_size: ['INT', { default: 1, min: 1, max: 4096 }],
        },
      },
      output: ['LATENT'],
      outputNode: false,
      category: 'latent',
    },
    KSampler: {
      input: {
        required: {
          model: ['MODEL'],
          seed: ['INT', { default: 0, min: 0, max: MAX_SEED, control_after_generate: true }],
          steps: ['INT', { default: 20, min: 1, max: 10000 }],
          cfg: ['FLOAT', { default: 8.0, min: 0.0, max: 100.0, step: 0.1, round: 0.01 }],
          sampler_name: [SAMPLERS],
          scheduler: [SCHEDULERS],
          positive: ['CONDITIONING'],
          negative: ['CONDITIONING'],
          latent_image: ['LATENT'],
          denoise: ['FLOAT', { default: 1.0, min: 0.0, max: 1.0, step: 0.01 }],
        },
      },
      output: ['LATENT'],
      outputNode: false,
      category: 'sampling',
    },
    VAEDecode: {
      input: { required: { samples: ['LATENT'], vae: ['VAE'] } },
      output: ['IMAGE'],
      outputNode: false,
      category: 'latent',
    },
    VAEEncode: {
      input: { required: { pixels: ['IMAGE'], vae: ['VAE'] } },
      output: ['LATENT'],
      outputNode: false,
      category: 'latent',
    },
    LoadImage: {
      input: { required: { image: [inputFiles, { image_upload: true }] } },
      output: ['IMAGE', 'MASK'],
      outputNode: false,
      category: 'image',
      validateInputs: ['image'],
    },
    SaveImage: {
      input: {
        required: { images: ['IMAGE'], filename_prefix: ['STRING', { default: 'ComfyUI' }] },
        hidden: SAVE_HIDDEN,
      },
      output: [],
      outputNode: true,
      category: 'image',
      description: 'Saves the input images to your ComfyUI output directory.',
    },
    PreviewImage: {
      input: { required: { images: ['IMAGE'] }, hidden: SAVE_HIDDEN },
      output: [],
      outputNode: true,
      category: 'image',
    },
    EmptyImage: {
      input: {
        required: {
          width: ['INT', { default: 512, min: 1, max: MAX_RESOLUTION, step: 1 }],
          height: ['INT', { default: 512, min: 1, max: MAX_RESOLUTION, step: 1 }],
          batch_size: ['INT', { default: 1, min: 1, max: 4096 }],
          color: ['INT', { default: 0, min: 0, max: 0xffffff, step: 1, display: 'color' }],
        },
      },
      output: ['IMAGE'],
      outputNode: false,
      category: 'image',
    },
    ImageInvert: { input: { required: { image: ['IMAGE'] } }, output: ['IMAGE'], outputNode: false, category: 'image' },
    ImageScale: {
      input: {
        required: {
          image: ['IMAGE'],
          upscale_method: [['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos']],
          width: ['INT', { default: 512, min: 0, max: MAX_RESOLUTION, step: 1 }],
          height: ['INT', { default: 512, min: 0, max: MAX_RESOLUTION, step: 1 }],
          crop: [['disabled', 'center']],
        },
      },
      output: ['IMAGE'],
      outputNode: false,
      category: 'image/upscaling',
    },
    RepeatImageBatch: {
      input: { required: { image: ['IMAGE'], amount: ['INT', { default: 1, min: 1, max: 4096 }] } },
      output: ['IMAGE'],
      outputNode: false,
      category: 'image/batch',
      module: 'comfy_extras.nodes_images',
    },
    PrimitiveString: {
      input: { required: { value: ['STRING', {}] } },
      output: ['STRING'],
      outputNode: false,
      category: 'utils/primitive',
      module: 'comfy_extras.nodes_primitive',
    },
    ImgtaskTestSteps: {
      input: {
        required: {
          image: ['IMAGE'],
          steps: ['INT', { default: 4, min: 1, max: 1000 }],
          seed: ['INT', { default: 0, min: 0, max: MAX_SEED }],
          step_seconds: ['FLOAT', { default: 0.25, min: 0.0, max: 60.0, step: 0.01 }],
        },
      },
      output: ['IMAGE'],
      outputNode: false,
      category: 'imgtask/test',
      module: 'custom_nodes.imgtask_test_nodes',
    },
    ImgtaskTestFail: {
      input: { required: { image: ['IMAGE'], message: ['STRING', { default: 'imgtask test failure' }] } },
      output: ['IMAGE'],
      outputNode: false,
      category: 'imgtask/test',
      module: 'custom_nodes.imgtask_test_nodes',
    },
    SaveAnimatedWEBP: {
      input: {
        required: {
          images: ['IMAGE'],
          filename_prefix: ['STRING', { default: 'ComfyUI' }],
          fps: ['FLOAT', { default: 6.0, min: 0.01, max: 1000.0, step: 0.01 }],
          lossless: ['BOOLEAN', { default: true }],
          quality: ['INT', { default: 80, min: 0, max: 100 }],
          method: [['default', 'fastest', 'slowest']],
        },
        hidden: SAVE_HIDDEN,
      },
      output: [],
      outputNode: true,
      category: 'image/animation',
      module: 'comfy_extras.nodes_images',
    },
  };
}

/** One class as GET /object_info describes it (server.py node_info). */
export function objectInfo(name: string, node: NodeClass): Record<string, unknown> {
  const input: Record<string, unknown> = { required: node.input.required };
  const inputOrder: Record<string, string[]> = { required: Object.keys(node.input.required) };
  if (node.input.optional) {
    input.optional = node.input.optional;
    inputOrder.optional = Object.keys(node.input.optional);
  }
  if (node.input.hidden) {
    input.hidden = node.input.hidden;
    inputOrder.hidden = Object.keys(node.input.hidden);
  }
  return {
    input,
    input_order: inputOrder,
    output: node.output,
    output_is_list: node.output.map(() => false),
    output_name: node.outputName ?? node.output,
    name,
    display_name: name,
    description: node.description ?? '',
    python_module: node.module ?? 'nodes',
    category: node.category,
    output_node: node.outputNode,
  };
}

import type { Manifest } from '@contentauth/c2pa-types';
import type { OutputOrigin } from '../domain/provenance.js';

/** imgtask's own assertion (a custom assertion's label is reverse-domain, C2PA 2.x §6.2). */
export const IMGTASK_ASSERTION = 'io.imgtask.generation';

/** IPTC's digital source type of media made by a trained model (what the EU AI Act's marking says in C2PA). */
export const TRAINED_ALGORITHMIC_MEDIA = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';

/** The label the source of an edit is named by, as an ingredient and in the c2pa.opened action. */
export const SOURCE_INGREDIENT = 'source';

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
};

/**
 * The manifest definition of a stored output (docs/provenance.md): the claim generator imgtask
 * and its version; `c2pa.actions.v2` with `c2pa.created` (from a prompt) or `c2pa.opened` of the
 * source then `c2pa.edited` (from an input image: the source is the parentOf ingredient, as C2PA
 * requires of an edit), each stating an AI-made result; and imgtask's assertion. The prompt only
 * when `includePrompt` is on.
 */
export function buildManifest(args: {
  version: string;
  mimeType: string;
  origin: OutputOrigin;
  includePrompt: boolean;
}): Manifest {
  const { origin, version } = args;
  const agent = { name: 'imgtask', version };
  const made = { digitalSourceType: TRAINED_ALGORITHMIC_MEDIA, softwareAgent: agent };
  const actions =
    origin.action === 'edited' && origin.ingredient
      ? [
          { action: 'c2pa.opened', softwareAgent: agent, parameters: { ingredientIds: [SOURCE_INGREDIENT] } },
          { action: 'c2pa.edited', ...made },
        ]
      : [{ action: origin.action === 'edited' ? 'c2pa.edited' : 'c2pa.created', ...made }];
  return {
    claim_generator_info: [agent],
    title: `${origin.taskId}.${EXTENSIONS[args.mimeType] ?? 'bin'}`,
    format: args.mimeType,
    assertions: [
      { label: 'c2pa.actions.v2', data: { actions } },
      { label: IMGTASK_ASSERTION, data: imgtaskAssertion(origin, args.includePrompt) },
    ],
  } as unknown as Manifest;
}

/** What imgtask knows of how the output was made; absent fields stay out. */
function imgtaskAssertion(origin: OutputOrigin, includePrompt: boolean): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    taskId: origin.taskId,
    taskType: origin.taskType,
    model: origin.model,
    provider: origin.provider,
    seed: origin.seed,
    workflowSha256: origin.workflowSha256,
    parametersSha256: origin.parametersSha256,
    rating: origin.rating,
    review: origin.review,
    prompt: includePrompt ? origin.prompt : undefined,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

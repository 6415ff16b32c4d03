import type { Config } from '../config/schema.js';
import type { LoadedWorkflow } from '../domain/comfy-workflows.js';
import type { ModelParameter } from '../domain/model-parameters.js';
import { modelProviders } from '../domain/provider-lanes.js';

/** One model's workflow on a ComfyUI server, with the parameters the model declares. */
export interface ServedWorkflow {
  model: string;
  workflow: LoadedWorkflow;
  parameters?: Readonly<Record<string, ModelParameter>>;
}

/**
 * The workflows a ComfyUI provider runs: each model (`models.<id>`, `videoModels.<id>`) that names it, with its loaded
 * workflow.
 */
export function workflowsServedBy(config: Config, provider: string): ServedWorkflow[] {
  const served: ServedWorkflow[] = [];
  const sections = [
    ['models', config.models],
    ['videoModels', config.videoModels],
  ] as const;
  for (const [section, models] of sections) {
    for (const [id, model] of Object.entries(models)) {
      const workflow = config.workflows[`${section}.${id}`];
      const names = modelProviders(model);
      if (workflow && names.includes(provider))
        served.push({ model: `${section}.${id}`, workflow, parameters: model.parameters });
    }
  }
  return served;
}

import type { Config } from '../../config/schema.js';
import { recheckWorkflow } from '../../config/workflows.js';
import { type ComfyHealth, comfyHealth } from '../../providers/remote/comfyui/health.js';
import { comfyHeaders, secretNames } from '../providers.js';

export interface EnginesReport {
  /** Each ComfyUI server: reachable, version, device, queue. */
  comfyui: ComfyHealth[];
  /** Each ComfyUI model's workflow file, read again: it parses and every binding names a node input. */
  workflows: { model: string; file: string; ok: boolean; problems: string[] }[];
}

/** The image engines the config names, checked now (doctor): ComfyUI servers and workflow files. */
export async function checkEngines(config: Config, secret: (name: string) => Promise<string | undefined>): Promise<EnginesReport> {
  const values = new Map<string, string>();
  for (const name of secretNames(config)) {
    const value = await secret(name);
    if (value !== undefined) values.set(name, value);
  }
  const servers = Object.entries(config.providers).flatMap(([name, provider]) => (provider.type === 'comfyui' ? [{ name, baseUrl: provider.baseUrl, headers: comfyHeaders(provider, values) }] : []));
  const comfyui = await Promise.all(servers.map((server) => comfyHealth(server)));
  const workflows = Object.entries(config.workflows).map(([model, workflow]) => {
    const problems = recheckWorkflow(workflow);
    return { model, file: workflow.file, ok: problems.length === 0, problems };
  });
  return { comfyui, workflows };
}

import { workflowsNotLoaded } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import { recheckWorkflow } from '../../config/workflows.js';
import { type ComfyHealth, comfyHealth } from '../../providers/remote/comfyui/comfy-health.js';
import { type ComfyServer, comfyHttp } from '../../providers/remote/comfyui/comfy-http.js';
import { readObjectInfo, workflowFitProblems } from '../../providers/remote/comfyui/object-info.js';
import { outputNodeProblems } from '../../providers/remote/comfyui/output-node-check.js';
import { workflowsServedBy } from '../comfy-workflows-served.js';
import { comfyHeaders, secretNames } from '../providers.js';

/** A workflow against one of its model's servers: whether the server can run it (GET /object_info). */
export interface WorkflowFit {
  provider: string;
  /** False when the server's catalogue could not be read (the server is down: reported on its own). */
  checked: boolean;
  problems: string[];
}

export interface EnginesReport {
  /** Each ComfyUI server: reachable, version, device, queue. */
  comfyui: ComfyHealth[];
  /**
   * Each ComfyUI model's workflow file, read again (it parses and every binding names a node
   * input), and checked against each of its servers' node catalogues (`servers`).
   */
  workflows: { model: string; file: string; ok: boolean; problems: string[]; servers: WorkflowFit[] }[];
}

/** The image engines the config names, checked now (doctor): ComfyUI servers and workflow files. */
export async function checkEngines(
  config: Config,
  secret: (name: string) => Promise<string | undefined>,
  timeoutMs = 5000,
): Promise<EnginesReport> {
  const values = new Map<string, string>();
  for (const name of secretNames(config)) {
    const value = await secret(name);
    if (value !== undefined) values.set(name, value);
  }
  const servers: ComfyServer[] = Object.entries(config.providers).flatMap(([name, provider]) =>
    provider.type === 'comfyui' ? [{ name, baseUrl: provider.baseUrl, headers: comfyHeaders(provider, values) }] : [],
  );
  const comfyui = await Promise.all(servers.map((server) => comfyHealth(server, timeoutMs)));
  // Each server's catalogue read once, for every workflow of the models it serves.
  const fitsByServer = await Promise.all(
    servers.map(async (server, i): Promise<[string, WorkflowFit][]> => {
      const served = workflowsServedBy(config, server.name);
      if (served.length === 0) return [];
      if (!comfyui[i].ok)
        return served.map(({ model }) => [model, { provider: server.name, checked: false, problems: [] }]);
      try {
        const info = await readObjectInfo(comfyHttp(server), AbortSignal.timeout(timeoutMs));
        return served.map(({ model, workflow, parameters }) => [
          model,
          {
            provider: server.name,
            checked: true,
            problems: [...workflowFitProblems(info, workflow, parameters), ...outputNodeProblems(info, workflow)],
          },
        ]);
      } catch (err) {
        const problem = `could not read its node catalogue (GET /object_info): ${(err as Error).message}`;
        return served.map(({ model }) => [model, { provider: server.name, checked: true, problems: [problem] }]);
      }
    }),
  );
  const fits = (model: string) => fitsByServer.flat().flatMap(([of, fit]) => (of === model ? [fit] : []));
  const workflows = Object.entries(config.workflows).map(([model, workflow]) => {
    const problems = recheckWorkflow(workflow);
    const onServers = fits(model);
    const ok = problems.length === 0 && onServers.every((fit) => fit.problems.length === 0);
    return { model, file: workflow.file, ok, problems, servers: onServers };
  });
  // Workflow files a doctor's own config load could not read: reported here, with the other checks made.
  for (const failure of workflowsNotLoaded(config))
    workflows.push({ model: failure.model, file: failure.file, ok: false, problems: [failure.problem], servers: [] });
  return { comfyui, workflows };
}

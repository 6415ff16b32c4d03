import type { LoadedWorkflow } from '../../../domain/comfy-workflows.js';
import type { ModelParameter } from '../../../domain/model-parameters.js';
import { type ComfyServer, comfyHttp } from './comfy-http.js';
import { readObjectInfo, workflowFitProblems } from './object-info.js';
import type { ComfyLog } from './outage.js';
import { outputNodeProblems } from './output-node-check.js';

/** How long the check may wait for the server's node catalogue. */
const CATALOGUE_TIMEOUT_MS = 30_000;

export interface WorkflowCheckOptions {
  server: ComfyServer;
  /** The workflows of the models this server serves, as the config in force has them. */
  workflows(): { model: string; workflow: LoadedWorkflow; parameters?: Readonly<Record<string, ModelParameter>> }[];
  log: ComfyLog;
}

/**
 * Checks the workflows a ComfyUI server runs against its node catalogue (GET /object_info) each
 * time it comes up: the first answer after start, and the first after it could not be reached.
 * Problems are logged (warn) and nothing is refused: the server's own validation fails the item.
 * Answers `reached`, the hook comfyHttp tells of each request's outcome.
 */
export function createWorkflowCheck(options: WorkflowCheckOptions): (answered: boolean) => void {
  // Its own client, without the hook: the check's request does not count as the service reaching the server.
  const http = comfyHttp({
    name: options.server.name,
    baseUrl: options.server.baseUrl,
    headers: options.server.headers,
  });
  const name = options.server.name;
  let up = false;

  const check = async () => {
    const served = options.workflows();
    if (served.length === 0) return;
    let info: Awaited<ReturnType<typeof readObjectInfo>>;
    try {
      info = await readObjectInfo(http, AbortSignal.timeout(CATALOGUE_TIMEOUT_MS));
    } catch (err) {
      options.log(
        'warn',
        `comfyui: could not check the workflows of ${served.map((s) => s.model).join(', ')} against ${name} (GET /object_info): ${(err as Error).message}`,
      );
      return;
    }
    const fitting: string[] = [];
    for (const { model, workflow, parameters } of served) {
      const problems = [...workflowFitProblems(info, workflow, parameters), ...outputNodeProblems(info, workflow)];
      if (problems.length === 0) fitting.push(model);
      else
        options.log(
          'warn',
          `comfyui: the workflow of ${model} does not fit ${name}, its items will fail there: ${problems.join('; ')}`,
        );
    }
    if (fitting.length > 0) options.log('info', `comfyui: workflows of ${fitting.join(', ')} fit ${name}`);
  };

  return (answered) => {
    if (!answered) {
      up = false;
      return;
    }
    if (up) return;
    up = true;
    void check();
  };
}

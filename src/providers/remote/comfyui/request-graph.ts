import type { LoadedWorkflow, WorkflowGraph } from '../../../domain/comfy-workflows.js';
import { ProviderError } from '../../../domain/tasks.js';
import type { GenerateParams, VideoParams } from '../../types.js';
import { type BoundValues, bindWorkflow } from './graph.js';
import type { ComfyHttp } from './http.js';
import { graphProblems, type ObjectInfo, readObjectInfo } from './object-info.js';

/** How long a server's node catalogue is trusted for checking posted graphs (custom nodes change with a restart, rarely). */
const OBJECT_INFO_FOR_MS = 60_000;

/**
 * The graph one item queues: the model's workflow with the request bound into it (its declared
 * parameters too, defaults filled in); or the whole graph the request posted (`workflow`), with
 * the model's bindings and parameters set only where the posted graph has that node input, and
 * checked against the server's GET /object_info first: a graph the server cannot run fails
 * INVALID_INPUT before it is queued (not retried: every server of the model would refuse it).
 */
export function createRequestGraphs(http: ComfyHttp, serverName: string) {
  let catalogue: { info: ObjectInfo; readAt: number } | undefined;
  async function objectInfo(signal: AbortSignal): Promise<ObjectInfo> {
    if (!catalogue || Date.now() - catalogue.readAt > OBJECT_INFO_FOR_MS) catalogue = { info: await readObjectInfo(http, signal), readAt: Date.now() };
    return catalogue.info;
  }

  return async function requestGraph(workflow: LoadedWorkflow, params: GenerateParams | VideoParams, values: BoundValues): Promise<WorkflowGraph> {
    const parameters = workflow.parameters && params.parameters ? { bindings: workflow.parameters, values: params.parameters } : undefined;
    if (!params.workflow) return bindWorkflow(workflow.graph, workflow.bindings, values, { parameters });
    const graph = bindWorkflow(params.workflow, workflow.bindings, values, { parameters, onlyExistingInputs: true });
    const problems = graphProblems(await objectInfo(params.signal), graph);
    if (problems.length > 0) throw new ProviderError('INVALID_INPUT', `${serverName} cannot run the posted workflow: ${problems.join('; ')}`, { retryable: false });
    return graph;
  };
}

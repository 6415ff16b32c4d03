import type { LoadedWorkflow, WorkflowGraph } from '../../../domain/comfy-workflows.js';
import { ProviderError } from '../../../domain/task-status.js';
import type { GenerateParams, VideoParams } from '../../provider-types.js';
import type { ComfyHttp } from './comfy-http.js';
import { type BoundValues, bindWorkflow } from './graph.js';
import { graphProblems, type ObjectInfo, readObjectInfo } from './object-info.js';

/**
 * How long a server's node catalogue is trusted for checking posted graphs (custom nodes change with a restart,
 * rarely).
 */
const OBJECT_INFO_FOR_MS = 60_000;

/**
 * The graph one item queues: the model's workflow with the request bound into it (its declared
 * parameters too, defaults filled in); or the whole graph the request posted (`workflow`), with
 * the model's bindings and parameters set only where the posted graph has that node input, and
 * checked against the server's GET /object_info first: a graph the server cannot run fails
 * INVALID_INPUT before it is queued (not retried: every server of the model would refuse it).
 */
export function createRequestGraphs(http: ComfyHttp, serverName: string) {
  // One read at a time, shared by every item that needs it (a large server's catalogue is megabytes); one that failed
  // is not kept.
  let catalogue: { info: Promise<ObjectInfo>; readAt: number } | undefined;
  function objectInfo(signal: AbortSignal): Promise<ObjectInfo> {
    signal.throwIfAborted();
    if (!catalogue || Date.now() - catalogue.readAt > OBJECT_INFO_FOR_MS) {
      // Not cut short by one item's cancel: the others wait for it too (the request has its own time limit).
      const reading = { info: readObjectInfo(http), readAt: Date.now() };
      reading.info.catch(() => {
        if (catalogue === reading) catalogue = undefined;
      });
      catalogue = reading;
    }
    const { info } = catalogue;
    return new Promise<ObjectInfo>((resolve, reject) => {
      const abort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      signal.addEventListener('abort', abort, { once: true });
      info.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
    });
  }

  return async function requestGraph(
    workflow: LoadedWorkflow,
    params: GenerateParams | VideoParams,
    values: BoundValues,
  ): Promise<WorkflowGraph> {
    const parameters =
      workflow.parameters && params.parameters
        ? { bindings: workflow.parameters, values: params.parameters }
        : undefined;
    if (!params.workflow) return bindWorkflow(workflow.graph, workflow.bindings, values, { parameters });
    const graph = bindWorkflow(params.workflow, workflow.bindings, values, { parameters, onlyExistingInputs: true });
    const problems = graphProblems(await objectInfo(params.signal), graph);
    if (problems.length > 0)
      throw new ProviderError('INVALID_INPUT', `${serverName} cannot run the posted workflow: ${problems.join('; ')}`, {
        retryable: false,
      });
    return graph;
  };
}

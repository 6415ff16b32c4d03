// What one job sends while it runs, shaped as ComfyUI shapes it: the executor's status messages
// (kept for the history entry too), executing / executed / progress to the job's client, the
// progress_state broadcast, and preview frames.

import { isLink } from './graph.js';
import type { Ui } from './nodes.js';
import type { StatusMessage } from './queue.js';
import { PREVIEW_IMAGE, PREVIEW_IMAGE_WITH_METADATA, type Sockets } from './sockets.js';
import type { Prompt } from './validate.js';

type NodeState = 'running' | 'finished';

export class JobMessages {
  /** The status messages of the history entry: execution_start, execution_cached, then how it ended. */
  readonly messages: StatusMessage[] = [];
  /** comfy_execution.progress's registry: the nodes that have started, with their progress. */
  private readonly nodes = new Map<string, { state: NodeState; value: number; max: number }>();

  constructor(
    private readonly sockets: Sockets,
    readonly promptId: string,
    readonly prompt: Prompt,
    /** The job's client id; null sends what ComfyUI sends with no sid, to every socket. */
    private readonly clientId: string | null,
  ) {}

  /**
   * PromptExecutor.add_message: recorded with a timestamp; sent to the client, or to all when `broadcast` and there is
   * none.
   */
  status(event: string, data: Record<string, unknown>, broadcast: boolean): void {
    const full = { prompt_id: this.promptId, ...data, timestamp: Date.now() };
    this.messages.push([event, full]);
    if (this.clientId !== null || broadcast) this.sockets.send(event, full, this.clientId);
  }

  executing(nodeId: string): void {
    if (this.clientId !== null)
      this.sockets.send('executing', { node: nodeId, display_node: nodeId, prompt_id: this.promptId }, this.clientId);
  }

  executed(nodeId: string, output: Ui | null): void {
    if (this.clientId !== null)
      this.sockets.send(
        'executed',
        { node: nodeId, display_node: nodeId, output, prompt_id: this.promptId },
        this.clientId,
      );
  }

  /** A node starts (value 0 of 1) or finishes (value = max): a progress_state broadcast. */
  progressState(nodeId: string, state: NodeState, value = 0, max = 1): void {
    const entry = this.nodes.get(nodeId) ?? { state, value, max };
    if (state === 'finished') Object.assign(entry, { state, value: entry.max });
    else Object.assign(entry, { state, value, max });
    this.nodes.set(nodeId, entry);
    const nodes = Object.fromEntries(
      [...this.nodes].map(([id, node]) => [
        id,
        { ...node, node_id: id, prompt_id: this.promptId, display_node_id: id, parent_node_id: null, real_node_id: id },
      ]),
    );
    this.sockets.send('progress_state', { prompt_id: this.promptId, nodes }, null);
  }

  /**
   * One step of a node's progress bar (main.py's progress hook, comfy_execution.progress): the
   * progress_state broadcast, then the step's preview with metadata (event 4) for a client that
   * announced supports_preview_metadata, then `progress`, then the older preview frame (event 1,
   * ">I" image type 1 = JPEG, then the image) for a client that did not, or for every socket when
   * the job has no client.
   */
  progress(nodeId: string, value: number, max: number, preview: Buffer | null): void {
    this.progressState(nodeId, 'running', value, max);
    const tagged = this.sockets.wantsPreviewMetadata(this.clientId);
    if (preview && tagged) {
      const metadata = Buffer.from(
        JSON.stringify({
          node_id: nodeId,
          prompt_id: this.promptId,
          display_node_id: nodeId,
          parent_node_id: null,
          real_node_id: nodeId,
          image_type: 'image/jpeg',
        }),
      );
      this.sockets.sendBytes(
        PREVIEW_IMAGE_WITH_METADATA,
        Buffer.concat([uint32(metadata.length), metadata, preview]),
        this.clientId,
      );
    }
    this.sockets.send('progress', { value, max, prompt_id: this.promptId, node: nodeId }, this.clientId);
    if (preview && !tagged) this.sockets.sendBytes(PREVIEW_IMAGE, Buffer.concat([uint32(1), preview]), this.clientId);
  }

  /**
   * execution_error: the node that raised, the exception, the node's inputs, the nodes done and those the cache held.
   */
  error(nodeId: string, message: string, pyType: string, tips: string, executed: string[], cached: string[]): void {
    const node = this.prompt[nodeId];
    const inputs = Object.entries(node.inputs).map(([name, value]) => [
      name,
      [isLink(value) ? `<${this.prompt[value[0]]?.class_type} output ${value[1]}>` : value],
    ]);
    this.status(
      'execution_error',
      {
        node_id: nodeId,
        node_type: node.class_type,
        executed,
        exception_message: `${message}\n${tips}`,
        exception_type: pyType,
        traceback: [
          '  File "/ComfyUI/execution.py", line 496, in execute\n    output_data, output_ui, has_subgraph, has_pending_tasks = await get_output_data(...)\n',
        ],
        current_inputs: Object.fromEntries(inputs),
        current_outputs: cached,
      },
      false,
    );
  }

  /** The history entry's `meta`: per node with a result, where it sits in the graph. */
  meta(
    nodeIds: string[],
  ): Record<string, { node_id: string; display_node: string; parent_node: null; real_node_id: string }> {
    return Object.fromEntries(
      nodeIds.map((id) => [id, { node_id: id, display_node: id, parent_node: null, real_node_id: id }]),
    );
  }
}

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

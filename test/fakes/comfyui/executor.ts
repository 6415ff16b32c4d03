// The one executor (main.py prompt_worker + execution.PromptExecutor): runs queued prompts one at a
// time and sends what ComfyUI sends while it does, in the same order and to the same sockets.
import { setTimeout as delay } from 'node:timers/promises';
import type { Folders } from './folders.js';
import { executionOrder, inputSignatures, isLink } from './graph.js';
import { JobMessages } from './job-messages.js';
import { type NodeResult, runNode, type Ui } from './nodes.js';
import type { PromptQueue, QueueItem } from './queue.js';
import type { Sockets } from './sockets.js';

export interface ExecutorOptions {
  /**
   * Milliseconds between execution_success and the history write (ComfyUI writes it a moment later, from its worker
   * loop).
   */
  historyDelayMs: number;
  stepDelayMs: number;
  maxSteps: number;
  previews: boolean;
  cache: boolean;
}

export type FailureKind = 'execution_error' | 'out_of_memory';

/** comfy.model_management.InterruptProcessingException. */
class Interrupted extends Error {}
/** The server died or closed: the job ends with no history, no more messages. */
class Stopped extends Error {}
/** An exception a node raised: its Python type name and the tips ComfyUI appends. */
class NodeFailure extends Error {
  constructor(
    message: string,
    readonly pyType: string,
    readonly tips = '',
  ) {
    super(message);
  }
}

const OOM_TIPS =
  'This error means you ran out of memory on your GPU.\n\nTIPS: If the workflow worked before you might have accidentally set the batch_size to a large number.';

export class Executor {
  /** The client of the running job (extra_data.client_id), null when it sent none. */
  clientId: string | null = null;
  /** The node running now, sent again to its client when it reconnects. */
  lastNodeId: string | null = null;
  private interruptFlag = false;
  private failure: { kind: FailureKind; message: string; times: number } | null = null;
  private dropArmed = false;
  private dieArmed = false;
  private held = false;
  private wake: (() => void) | null = null;
  private stopped = false;
  /** Raised by forget(): a job started under an older one stops as a dead server's would. */
  private generation = 0;
  private jobGeneration = 0;
  private busy = false;
  private readonly stop = new AbortController();
  /** Outputs of earlier prompts' nodes by input signature (ComfyUI's classic cache). */
  private readonly cache = new Map<string, NodeResult>();

  constructor(
    private readonly queue: PromptQueue,
    private readonly sockets: Sockets,
    private readonly folders: Folders,
    private readonly options: ExecutorOptions,
    private readonly preview: Buffer,
    /** Kills the server (dieDuringNextJob). */
    private readonly die: () => void,
  ) {}

  failNext(kind: FailureKind, message: string, times = 1): void {
    this.failure = { kind, message, times };
  }
  dropSocketsDuringNextJob(): void {
    this.dropArmed = true;
  }
  dieDuringNextJob(): void {
    this.dieArmed = true;
  }
  hold(): void {
    this.held = true;
  }
  release(): void {
    this.held = false;
    this.wake?.();
  }

  /** nodes.interrupt_processing(): the running job stops at its next check. */
  interrupt(): void {
    this.interruptFlag = true;
    this.wake?.();
  }

  /**
   * A restart: the running job ends here without a word or a history entry; the executor goes on with what is queued
   * next.
   */
  forget(): void {
    this.generation += 1;
    this.wake?.();
  }

  close(): void {
    this.stopped = true;
    this.stop.abort();
    this.wake?.();
  }

  /** Starts the next prompt once the current turn is over (the HTTP answer to /prompt goes out first). */
  schedule(): void {
    setImmediate(() => void this.next());
  }

  private async next(): Promise<void> {
    if (this.busy || this.stopped) return;
    const item = this.queue.take();
    if (!item) return;
    this.busy = true;
    try {
      await this.run(item);
    } finally {
      this.busy = false;
    }
    this.schedule();
  }

  private async run(item: QueueItem): Promise<void> {
    const [, promptId, prompt, extraData, outputs] = item;
    this.interruptFlag = false;
    this.jobGeneration = this.generation;
    this.clientId =
      extraData.client_id === undefined || extraData.client_id === null ? null : String(extraData.client_id);
    const job = new JobMessages(this.sockets, promptId, prompt, this.clientId);
    job.status('execution_start', {}, false);
    const signatures = inputSignatures(prompt, (name) => this.folders.annotatedFile(name));
    this.pruneCache(new Set(signatures.values()));
    const cached = Object.keys(prompt).filter((id) => this.cache.has(signatures.get(id)!));
    job.status('execution_cached', { nodes: cached }, false);
    // Cached nodes are not run again: their outputs feed the nodes that are.
    const values = new Map<string, unknown[]>(cached.map((id) => [id, this.cache.get(signatures.get(id)!)!.outputs]));
    const uis = new Map<string, Ui>();
    const executed: string[] = [];
    let current = '';
    let success = true;
    try {
      for (const id of executionOrder(prompt, outputs, new Set(cached))) {
        current = id;
        await this.execute(job, id, signatures.get(id)!, values, uis);
        executed.push(id);
      }
      job.status('execution_success', {}, false);
    } catch (err) {
      if (err instanceof Stopped || this.stopped) return;
      success = false;
      if (err instanceof Interrupted)
        job.status(
          'execution_interrupted',
          { node_id: current, node_type: prompt[current].class_type, executed },
          true,
        );
      else {
        const failure = err instanceof NodeFailure ? err : new NodeFailure((err as Error).message, 'Exception');
        job.error(current, failure.message, failure.pyType, failure.tips, executed, cached);
      }
    }
    // main.py's prompt_worker writes the history after execute() returned: a reader may come first.
    if (this.options.historyDelayMs > 0)
      await delay(this.options.historyDelayMs, undefined, { signal: this.stop.signal }).catch(() => {});
    if (this.stopped || this.jobGeneration !== this.generation) return;
    this.queue.done({
      prompt: item,
      outputs: Object.fromEntries(uis),
      status: { status_str: success ? 'success' : 'error', completed: success, messages: job.messages },
      meta: job.meta([...uis.keys()]),
    });
    this.lastNodeId = null;
    if (this.clientId !== null) this.sockets.send('executing', { node: null, prompt_id: promptId }, this.clientId);
  }

  private async execute(
    job: JobMessages,
    id: string,
    signature: string,
    values: Map<string, unknown[]>,
    uis: Map<string, Ui>,
  ): Promise<void> {
    const node = job.prompt[id];
    const cached = this.cache.get(signature);
    if (cached) {
      // An output node whose inputs did not change: shown again from the cache, not run.
      values.set(id, cached.outputs);
      if (cached.ui) uis.set(id, cached.ui);
      job.executed(id, cached.ui ?? null);
      job.progressState(id, 'finished');
      return;
    }
    job.progressState(id, 'running');
    this.lastNodeId = id;
    job.executing(id);
    this.checkInterrupt();
    const inputs = Object.fromEntries(
      Object.entries(node.inputs).map(([name, value]) => [
        name,
        isLink(value) ? values.get(String(value[0]))![value[1]] : value,
      ]),
    );
    const result = await runNode(node.class_type, inputs, {
      folders: this.folders,
      sample: (steps, stepMs) => this.sample(job, id, steps, stepMs),
    });
    values.set(id, result.outputs);
    if (result.ui) {
      uis.set(id, result.ui);
      job.executed(id, result.ui);
    }
    if (this.options.cache) this.cache.set(signature, result);
    job.progressState(id, 'finished');
  }

  /** A progress bar's steps: each one a `progress` message (ComfyUI's progress hook), interruptible. */
  private async sample(job: JobMessages, nodeId: string, steps: number, stepMs?: number): Promise<void> {
    const failure = this.failure;
    if (failure) failure.times -= 1;
    if (failure && failure.times <= 0) this.failure = null;
    if (failure?.kind === 'out_of_memory') throw new NodeFailure(failure.message, 'torch.OutOfMemoryError', OOM_TIPS);
    if (failure) throw new NodeFailure(failure.message, 'RuntimeError');
    const max = stepMs === undefined ? Math.min(steps, this.options.maxSteps) : steps;
    const pause = stepMs ?? this.options.stepDelayMs;
    for (let value = 1; value <= max; value++) {
      // As a node's own sleep: an interrupt is seen at the step's end, when it reports progress.
      if (pause > 0) await delay(pause, undefined, { signal: this.stop.signal }).catch(() => {});
      if (this.stopped || this.jobGeneration !== this.generation) throw new Stopped();
      this.checkInterrupt();
      job.progress(nodeId, value, max, this.options.previews ? this.preview : null);
      if (value === 1) await this.afterFirstProgress();
    }
  }

  /** Where the test's controls act: the server dies, the sockets drop, or the job waits to be released. */
  private async afterFirstProgress(): Promise<void> {
    if (this.dieArmed) {
      this.dieArmed = false;
      this.stopped = true;
      this.die();
      throw new Stopped();
    }
    if (this.dropArmed) {
      this.dropArmed = false;
      this.sockets.terminateAll();
    }
    while (this.held && !this.interruptFlag && !this.stopped)
      await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = null;
    if (this.stopped || this.jobGeneration !== this.generation) throw new Stopped();
    this.checkInterrupt();
  }

  /** throw_exception_if_processing_interrupted: the flag is spent when it stops a job. */
  private checkInterrupt(): void {
    if (!this.interruptFlag) return;
    this.interruptFlag = false;
    throw new Interrupted();
  }

  /** Keeps only what the new prompt can reuse (cache.clean_unused), or nothing when caching is off. */
  private pruneCache(keep: Set<string>): void {
    for (const key of this.cache.keys()) if (!this.options.cache || !keep.has(key)) this.cache.delete(key);
  }
}

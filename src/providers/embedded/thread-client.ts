import { Worker } from 'node:worker_threads';
import { ProviderError } from '../../domain/task-status.js';

/**
 * Talks to a model running in a worker thread: started lazily on first use, one request map,
 * per-request timeout, and a fresh thread after a crash. The event loop only posts messages,
 * so the API keeps answering while the model computes.
 */
export class ThreadClient<In extends object, Out> {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<
    number,
    { resolve: (value: Out) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }
  >();
  private readonly idleWaiters: (() => void)[] = [];

  constructor(
    private readonly script: URL,
    private readonly label: string,
    private readonly options: { resourceLimits?: { maxOldGenerationSizeMb?: number } } = {},
  ) {}

  call(message: In, timeoutMs: number, transfer: ArrayBuffer[] = []): Promise<Out> {
    return this.send(message, timeoutMs, transfer);
  }

  /**
   * Starts the thread and has it load its model now (`{ warmUp: true, ...extra }`; the script
   * answers once loaded), so the first real call does not pay the load.
   */
  async warmUp(timeoutMs: number, extra: object = {}): Promise<void> {
    await this.send({ ...extra, warmUp: true }, timeoutMs, []);
  }

  private send(message: object, timeoutMs: number, transfer: ArrayBuffer[]): Promise<Out> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<Out>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.forget(id);
        reject(new ProviderError('TIMEOUT', `${this.label} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ ...message, id }, transfer);
    });
  }

  /**
   * Ends the thread once the calls under way have answered (at most `closeGraceMs`): a thread
   * ended inside the model's native code (a load, an inference) can abort the whole process
   * ("terminate called after throwing an instance of 'Napi::Error'").
   */
  async close(closeGraceMs = 30_000): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    if (this.pending.size > 0) {
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
        new Promise<void>((resolve) => (bound = setTimeout(resolve, closeGraceMs))),
      ]);
      clearTimeout(bound);
    }
    await worker.terminate();
  }

  /** Drops a call that answered, failed or timed out; the last one wakes whoever waits to close. */
  private forget(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script, { resourceLimits: this.options.resourceLimits });
    worker.unref(); // an idle model never keeps the process alive
    worker.on('message', (message: { id: number; error?: string } & Out) => {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.forget(message.id);
      clearTimeout(waiter.timer);
      if (message.error) waiter.reject(new ProviderError('PROVIDER_ERROR', `${this.label}: ${message.error}`));
      else waiter.resolve(message);
    });
    const failAll = (reason: string) => {
      if (this.worker === worker) this.worker = null;
      for (const [id, waiter] of this.pending) {
        clearTimeout(waiter.timer);
        waiter.reject(new ProviderError('PROVIDER_ERROR', `${this.label} stopped: ${reason}`));
        this.forget(id);
      }
    };
    worker.on('error', (err) => failAll(err.message));
    worker.on('exit', (code) => failAll(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }
}

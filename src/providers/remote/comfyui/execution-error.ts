import { scrubPaths } from './scrub-paths.js';

/**
 * Exceptions that may pass on another try of the same graph: memory that ran out (on the GPU, or
 * a device allocation over its limit), or the GPU's runtime failing. Any other exception a node
 * raises (a ValueError, a missing file, a shape mismatch) comes back the same every time.
 */
const TRANSIENT_TYPE = /OutOfMemoryError|AcceleratorError/;
const TRANSIENT_MESSAGE =
  /out of memory|CUDA error|HIP error|Allocation on device|CUBLAS_STATUS_(?:ALLOC_FAILED|EXECUTION_FAILED|INTERNAL_ERROR)|CUDNN_STATUS_(?:ALLOC_FAILED|EXECUTION_FAILED|INTERNAL_ERROR)/i;

export interface ExecutionFailure {
  /** One line, for the item's error: the node, its class and ComfyUI's exception, with server paths taken out. */
  message: string;
  /** The exception as ComfyUI sent it, for operators. */
  raw: string;
  /** Whether another try may pass (see TRANSIENT_*); false fails the item at once. */
  retryable: boolean;
}

/** `execution_error` (its data, as the socket or the history entry holds it) as the item's failure. */
export function describeExecutionError(data: Record<string, unknown>): ExecutionFailure {
  const type = typeof data.exception_type === 'string' ? data.exception_type : '';
  const text = typeof data.exception_message === 'string' ? data.exception_message : '';
  const node =
    data.node_id === undefined
      ? ''
      : `node ${String(data.node_id)}${data.node_type ? ` (${String(data.node_type)})` : ''}: `;
  const what = [type, text].filter((part) => part !== '').join(': ');
  const raw = `${node}${what || 'execution error'}`;
  return {
    message: scrubPaths(raw.replace(/\s+/g, ' ').trim()).slice(0, 500),
    raw: raw.slice(0, 2000),
    retryable: TRANSIENT_TYPE.test(type) || TRANSIENT_MESSAGE.test(text),
  };
}

import type { WorkflowGraph } from '../../../domain/comfy-workflows.js';

/**
 * How far a job has come, 0..1, from its messages: the nodes that will run (all but those
 * ComfyUI answered from its cache), how many have finished, and the steps of the one running
 * (`progress` {value, max}, sent by samplers). Reported only when it grows.
 */
export function createJobProgress(graph: WorkflowGraph, report: ((fraction: number) => void) | undefined) {
  let toRun = Object.keys(graph).length;
  const finished = new Set<string>();
  let running: string | undefined;
  let step = 0;
  let last = 0;
  const emit = () => {
    if (!report || toRun <= 0) return;
    const fraction = Math.min(1, (finished.size + step) / toRun);
    if (fraction > last) {
      last = fraction;
      report(fraction);
    }
  };
  return {
    cached(nodes: string[]) {
      toRun = Math.max(1, toRun - nodes.length);
    },
    /** A node started: the one before it (if any) finished. */
    executing(node: string) {
      if (running !== undefined && running !== node) finished.add(running);
      running = node;
      step = 0;
      emit();
    },
    step(value: number, max: number) {
      if (Number.isFinite(value) && Number.isFinite(max) && max > 0) step = Math.min(1, Math.max(0, value / max));
      emit();
    },
    executed(node: string) {
      finished.add(node);
      if (running === node) {
        running = undefined;
        step = 0;
      }
      emit();
    },
    done() {
      if (report && last < 1) {
        last = 1;
        report(1);
      }
    },
  };
}

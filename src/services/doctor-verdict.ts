import type { LedgerReport } from './doctor.js';
import type { StorageReport } from './space-guard.js';

/** What doctor needs of the engine checks (app/admin/engines.ts gives more: versions, devices, queues). */
export interface EngineChecks {
  comfyui: { provider: string; baseUrl: string; ok: boolean; problem?: string }[];
  workflows: { model: string; ok: boolean; problems: string[] }[];
}

/**
 * `imgtask doctor` as one report: `ok` is the whole verdict (the exit code's), `problems` every
 * problem found, and each section beside them with its own verdict, so that a script reading
 * `.ok` is never told all is well while a check failed (docs/operations.md).
 */
export interface DoctorReport<E extends EngineChecks = EngineChecks> {
  ok: boolean;
  problems: string[];
  ledger: LedgerReport;
  storage: StorageReport & { ok: boolean };
  engines: E & { ok: boolean };
}

/** Storage problems, one phrase each: folders below the floor, and the store refusing writes. */
const storageProblems = (storage: StorageReport): string[] => [
  ...storage.low.map((phrase) => `storage: ${phrase}`),
  ...(storage.writesRefused === null ? [] : [`storage: the store refuses writes: ${storage.writesRefused}`]),
];

/** Engine problems, one phrase each: a ComfyUI server that does not answer, a workflow that no longer matches. */
const engineProblems = (engines: EngineChecks): string[] => [
  ...engines.comfyui.filter((server) => !server.ok).map((server) => `comfyui ${server.provider} down: ${server.baseUrl}: ${server.problem ?? 'no answer'}`),
  ...engines.workflows.flatMap((workflow) => (workflow.ok ? [] : workflow.problems.map((problem) => `workflow ${workflow.model}: ${problem}`))),
];

/** Puts the sections' checks together under one verdict. */
export function doctorVerdict<E extends EngineChecks>(ledger: LedgerReport, storage: StorageReport, engines: E): DoctorReport<E> {
  const fromStorage = storageProblems(storage);
  const fromEngines = engineProblems(engines);
  const problems = [...ledger.problems, ...fromStorage, ...fromEngines];
  return {
    ok: ledger.ok && problems.length === 0,
    problems,
    ledger,
    storage: { ok: fromStorage.length === 0, ...storage },
    engines: { ok: fromEngines.length === 0, ...engines },
  };
}

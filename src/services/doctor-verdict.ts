import { bytesText } from '../domain/bytes.js';
import type { LedgerReport } from './doctor.js';
import type { ProvenanceCheck } from './provenance-check.js';
import type { StorageReport } from './space-guard.js';
import type { StorageInventory } from './storage-inventory.js';

/** What doctor needs of the engine checks (app/admin/engines.ts gives more: versions, devices, queues). */
export interface EngineChecks {
  comfyui: { provider: string; baseUrl: string; ok: boolean; problem?: string }[];
  /** `servers`: the workflow against each of its model's ComfyUI servers (what GET /object_info says they can run). */
  workflows: { model: string; ok: boolean; problems: string[]; servers?: { provider: string; problems: string[] }[] }[];
}

/**
 * `imgtask doctor` as one report: `ok` is the whole verdict (the exit code's), `problems` every
 * problem found, and each section beside them with its own verdict, so that a script reading
 * `.ok` is never told all is well while a check failed (docs/operations.md). `warnings` are
 * worth a look but fail nothing: orphan files, an inventory that could not be taken.
 */
export interface DoctorReport<E extends EngineChecks = EngineChecks> {
  ok: boolean;
  problems: string[];
  warnings: string[];
  ledger: LedgerReport;
  /**
   * `inventory`: what the blob storage holds; null when not taken (the console's view) or when it failed (a warning
   * says why).
   */
  storage: StorageReport & { ok: boolean; inventory: StorageInventory | null };
  engines: E & { ok: boolean };
  /** The signing certificate's state and expiry (src/services/provenance-check.ts); null when not checked. */
  provenance: ProvenanceCheck | null;
}

/** The inventory, or why it could not be taken; `skipped` when it was not asked for. */
export type InventoryOutcome = StorageInventory | { failure: string } | 'skipped';

/** Storage problems, one phrase each: folders below the floor, and the store refusing writes. */
const storageProblems = (storage: StorageReport): string[] => [
  ...storage.low.map((phrase) => `storage: ${phrase}`),
  ...(storage.writesRefused === null ? [] : [`storage: the store refuses writes: ${storage.writesRefused}`]),
];

/**
 * Engine problems, one phrase each: a ComfyUI server that does not answer, a workflow that no longer matches, or that a
 * server cannot run.
 */
const engineProblems = (engines: EngineChecks): string[] => [
  ...engines.comfyui
    .filter((server) => !server.ok)
    .map((server) => `comfyui ${server.provider} down: ${server.baseUrl}: ${server.problem ?? 'no answer'}`),
  ...engines.workflows.flatMap((workflow) =>
    workflow.ok ? [] : workflow.problems.map((problem) => `workflow ${workflow.model}: ${problem}`),
  ),
  ...engines.workflows.flatMap((workflow) =>
    (workflow.servers ?? []).flatMap((fit) =>
      fit.problems.map((problem) => `workflow ${workflow.model} on ${fit.provider}: ${problem}`),
    ),
  ),
];

/** Orphans and what --fix left, one phrase each: warnings, since an orphan costs space, not correctness. */
function inventoryWarnings(outcome: InventoryOutcome): string[] {
  if (outcome === 'skipped') return [];
  if ('failure' in outcome) return [`storage: no inventory of the files: ${outcome.failure}`];
  const { orphans, fixed } = outcome;
  const found = `${orphans.files} orphan file(s) (${bytesText(orphans.bytes)}) that no task or upload references`;
  if (!fixed)
    return orphans.files === 0
      ? []
      : [`storage: ${found}; imgtask doctor --fix removes the ${orphans.removable} older than an hour`];
  const warnings: string[] = [];
  if (fixed.held)
    warnings.push(
      `storage: no orphan removed while ${fixed.held} (items may hold files stored before their record); run imgtask doctor --fix again once that has passed`,
    );
  if (fixed.keptYoung > 0)
    warnings.push(
      `storage: ${fixed.keptYoung} orphan file(s) younger than an hour kept (a write may be under way); run imgtask doctor --fix again later`,
    );
  for (const failed of fixed.failed) warnings.push(`storage: could not remove the orphan ${failed}`);
  return warnings;
}

/** Puts the sections' checks together under one verdict. */
export function doctorVerdict<E extends EngineChecks>(
  ledger: LedgerReport,
  storage: StorageReport,
  engines: E,
  inventory: InventoryOutcome = 'skipped',
  provenance: ProvenanceCheck | null = null,
): DoctorReport<E> {
  const fromStorage = storageProblems(storage);
  const fromEngines = engineProblems(engines);
  const problems = [...ledger.problems, ...fromStorage, ...fromEngines, ...(provenance?.problems ?? [])];
  return {
    ok: ledger.ok && problems.length === 0,
    problems,
    warnings: [...inventoryWarnings(inventory), ...(provenance?.warnings ?? [])],
    ledger,
    storage: {
      ok: fromStorage.length === 0,
      ...storage,
      inventory: typeof inventory === 'object' && !('failure' in inventory) ? inventory : null,
    },
    engines: { ok: fromEngines.length === 0, ...engines },
    provenance,
  };
}

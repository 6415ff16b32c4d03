import type { Command } from 'commander';
import type { AdminResult } from '../../app/admin/ops.js';
import { bytesText } from '../../domain/bytes.js';
import { admin, adminPrint } from '../context.js';
import { EXIT, print } from '../output.js';
import { command } from '../run.js';
import { provenanceDoctorLines } from './provenance.js';

export function registerLedgerCommands(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check the ledger invariants, the free space the service writes into, each ComfyUI server and workflow file, the expiry of the signing certificate (a configured one within 30 days is a warning, an expired one fails), and count the stored files with the orphans no task or upload references; exits 1 when an invariant is broken, free space is below store.minFreeBytes, the store refuses writes, a ComfyUI server does not answer, a workflow no longer matches its bindings or a server cannot run it (GET /object_info: node classes, inputs, bound input types), or the signing certificate has expired (orphans and a certificate near its expiry are warnings)',
    )
    .option('--fix', 'remove the orphan files older than an hour (a younger one may be a write under way)')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, opts: { fix?: boolean }) => {
        const report = await admin(ctx, 'doctor', { fix: opts.fix === true });
        const { ledger } = report;
        print(ctx, report, () =>
          [
            ledger.ok
              ? `ledger ok: ${ledger.checked.accounts} accounts, ${ledger.checked.keys} keys, ${ledger.checked.tasks} tasks checked`
              : [
                  `ledger BROKEN (${ledger.problems.length} problem(s)):`,
                  ...ledger.problems.map((p) => `  - ${p}`),
                ].join('\n'),
            ...storageLines(report.storage),
            ...inventoryLines(report.storage.inventory, report.warnings),
            ...engineLines(report.engines),
            ...provenanceDoctorLines(report.provenance),
          ].join('\n'),
        );
        // The exit code is the report's own verdict: `ok` in --json says the same.
        return report.ok ? EXIT.ok : EXIT.failure;
      }),
    );

  program
    .command('sweep')
    .description(
      "Run the sweep now: fail tasks still pending 24 hours after their last update (TASK_EXPIRED), finish erasures a crash interrupted, and remove what retention.* (and accounts' own retention) says has aged out",
    )
    .option('--json', 'print one JSON document')
    .action(command(async (ctx) => adminPrint(ctx, 'sweep', {}, (result) => sweepText(result))));
}

/** What the sweep did: expired tasks, erasures finished, and what retention removed, by kind. */
function sweepText(result: AdminResult<'sweep'>): string {
  const { retention } = result;
  const removed = [
    [retention.outputs, 'task(s) lost their outputs and text (retention.outputs)'],
    [retention.uploads, 'upload(s) removed (retention.uploads)'],
    [retention.tasks, 'task record(s) removed (retention.tasks)'],
    [retention.deliveries, 'webhook delivery log(s) removed (retention.deliveries)'],
    [retention.consoleSessions, 'expired console session(s) and sign-in link(s) removed (retention.consoleSessions)'],
  ] as const;
  return [
    result.expired ? `expired ${result.expired} task(s): ${result.taskIds.join(', ')}` : 'no task to expire',
    ...result.erased.map((id) => `finished erasing account ${id}`),
    ...removed.filter(([count]) => count > 0).map(([count, words]) => `${count} ${words}`),
  ].join('\n');
}

type StorageReport = AdminResult<'doctor'>['storage'];

/** Free space per folder, the floor, and whether writes are taken: one line when all is well. */
function storageLines(storage: StorageReport): string[] {
  const free = storage.folders
    .map((folder) => `${bytesText(folder.freeBytes)} free for ${folder.name} (${folder.path})`)
    .join(', ');
  const floor = `store.minFreeBytes ${storage.minFreeBytes === 0 ? 'off' : bytesText(storage.minFreeBytes)}`;
  if (storage.low.length === 0 && storage.writesRefused === null)
    return [`storage ok: ${free || 'no local folder'}; ${floor}; writes taken`];
  const lines = [`storage LOW: ${free}; ${floor}`];
  for (const phrase of storage.low) lines.push(`  - ${phrase}: new tasks and uploads are refused (507 STORAGE_FULL)`);
  if (storage.writesRefused !== null) lines.push(`  - the store refuses writes: ${storage.writesRefused}`);
  return lines;
}

type Inventory = NonNullable<StorageReport['inventory']>;
const counted = (what: string, count: { files: number; bytes: number }) =>
  `${count.files} ${what} (${bytesText(count.bytes)})`;

/** The stored files and their orphans; with --fix, what it removed and kept. */
function inventoryLines(inventory: Inventory | null, warnings: string[]): string[] {
  if (!inventory)
    return warnings.filter((w) => w.startsWith('storage: no inventory')).map((w) => w.slice('storage: '.length));
  const { orphans, unrecorded, fixed } = inventory;
  const lines = [
    `files: ${counted('images', inventory.images)}, ${counted('videos and posters', inventory.videos)} in ${inventory.location}`,
  ];
  if (orphans.files === 0) lines.push('orphans: none');
  else {
    const more = orphans.files > orphans.examples.length ? ', …' : '';
    lines.push(
      `orphans: ${counted('files', orphans)} no task or upload references, ${orphans.removable} older than an hour (${orphans.examples.join(', ')}${more})`,
    );
    if (!fixed) lines.push('  imgtask doctor --fix removes those older than an hour');
  }
  if (unrecorded.files > 0)
    lines.push(
      `unrecorded: ${counted('files', unrecorded)} stored before ${unrecorded.before}, when files were not recorded yet (older uploads): kept`,
    );
  if (fixed) {
    if (fixed.held) lines.push(`fix: held, no orphan removed while ${fixed.held}`);
    else
      lines.push(
        `fix: removed ${fixed.removed} orphan file(s) (${bytesText(fixed.removedBytes)}), kept ${fixed.keptYoung} younger than an hour`,
      );
    for (const failed of fixed.failed) lines.push(`  - could not remove ${failed}`);
  }
  return lines;
}

/** One line per ComfyUI server and per workflow file (nothing when the config names none). */
function engineLines(engines: AdminResult<'doctor'>['engines']): string[] {
  const lines: string[] = [];
  for (const server of engines.comfyui) {
    lines.push(
      server.ok
        ? `comfyui ${server.provider} ok: ${server.baseUrl}${server.version ? `, ComfyUI ${server.version}` : ''}${server.device ? `, ${server.device}` : ''}, ${server.queue?.running ?? 0} running, ${server.queue?.pending ?? 0} waiting`
        : `comfyui ${server.provider} DOWN: ${server.baseUrl}: ${server.problem}`,
    );
  }
  for (const workflow of engines.workflows) {
    const checked = workflow.servers.filter((fit) => fit.checked);
    const fits = checked.length ? `, fits ${checked.map((fit) => fit.provider).join(', ')}` : '';
    if (workflow.ok) lines.push(`workflow ${workflow.model} ok: ${workflow.file}${fits}`);
    else if (workflow.problems.length) lines.push(`workflow ${workflow.model} BROKEN: ${workflow.problems.join('; ')}`);
    // One line per server that cannot run it, each problem on its own line (node, class, input).
    for (const fit of workflow.servers.filter((f) => f.problems.length))
      lines.push(`workflow ${workflow.model} does not fit ${fit.provider}:`, ...fit.problems.map((p) => `  - ${p}`));
  }
  return lines;
}

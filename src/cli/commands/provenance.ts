import type { Command } from 'commander';
import type { AdminResult } from '../../app/admin/ops.js';
import { adminPrint } from '../context.js';
import { command } from '../run.js';

type Report = AdminResult<'provenance'>;

/** The signer's state, then the certificate in use, one field a line. */
function reportText(report: Report): string {
  const state =
    report.state === 'signing'
      ? 'signing'
      : report.state === 'off'
        ? 'off (provenance.enabled is false; outputs are stored unsigned)'
        : `unavailable: ${report.reason ?? 'no reason given'} (outputs are stored unsigned)`;
  const lines = [`provenance: ${state}`];
  const cert = report.certificate;
  if (!cert) return lines.join('\n');
  const left = cert.daysLeft < 0 ? `expired ${-cert.daysLeft} days ago` : `${cert.daysLeft} days left`;
  lines.push(
    cert.local
      ? "certificate: local (made under the data dir's keys/; verifiers show it as untrusted until you install one from a C2PA-trusted CA: docs/provenance.md#certificates)"
      : 'certificate: configured (provenance.certificate)',
    `  subject:    ${cert.subject}`,
    `  issuer:     ${cert.issuer}`,
    ...(cert.serial ? [`  serial:     ${cert.serial}`] : []),
    `  sha256:     ${cert.sha256}`,
    `  not before: ${cert.notBefore}`,
    `  not after:  ${cert.notAfter} (${left}${cert.local ? '; renews itself at a start within 30 days of it' : ''})`,
  );
  return lines.join('\n');
}

export function registerProvenanceCommands(program: Command): void {
  const provenance = program
    .command('provenance')
    .description('Content Credentials (C2PA): the certificate outputs are signed with');
  provenance
    .command('show')
    .description(
      "Print the signer's state (signing, off, unavailable with why) and the certificate in use: subject, issuer, serial, SHA-256 fingerprint, validity and days left, local or configured",
    )
    .option('--json', 'print one JSON document')
    .action(command(async (ctx) => adminPrint(ctx, 'provenance', {}, (report) => reportText(report))));
}

/** Doctor's provenance lines: the state and the certificate's expiry, with what to do about it. */
export function provenanceDoctorLines(check: AdminResult<'doctor'>['provenance']): string[] {
  if (!check) return [];
  if (check.state === 'off') return ['provenance off: outputs are stored unsigned (provenance.enabled)'];
  if (check.state === 'unavailable')
    return [`provenance UNAVAILABLE: ${check.reason ?? 'no reason given'}; outputs are stored unsigned`];
  const cert = check.certificate;
  if (!cert) return ['provenance ok: signing'];
  const head = check.problems.length
    ? 'provenance EXPIRED'
    : check.warnings.length
      ? 'provenance EXPIRES SOON'
      : 'provenance ok';
  return [
    `${head}: signing with ${cert.local ? 'the local certificate' : 'the configured certificate'} (${cert.subject}), valid until ${cert.notAfter}`,
    ...[...check.problems, ...check.warnings, ...check.notes].map((line) => `  - ${line.replace(/^provenance: /, '')}`),
  ];
}

import type { CredentialsReport } from './provenance.js';

/**
 * A credentials report in words (`imgtask verify`, the console's full view): the verdict line, and
 * what the manifest says. The imgtask assertion is read leniently (camelCase or snake_case keys),
 * as any signer's may be verified.
 */

/** `http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia` → `trainedAlgorithmicMedia`. */
const lastSegment = (uri: string) => uri.slice(uri.lastIndexOf('/') + 1) || uri;

/** `c2pa.created` → `created`. */
const actionName = (action: string) => action.replace(/^c2pa\./, '');

const field = (assertion: Record<string, unknown>, ...names: string[]): unknown => {
  for (const name of names) if (assertion[name] !== undefined && assertion[name] !== null) return assertion[name];
  return undefined;
};

/** The signer as a phrase: its common name (organization), and when it signed. */
export function signerText(report: CredentialsReport): string {
  const signer = report.signer;
  if (!signer) return 'an unknown signer';
  const who = signer.commonName ?? signer.organization ?? signer.issuer ?? 'an unnamed certificate';
  const org = signer.organization && signer.organization !== who ? ` (${signer.organization})` : '';
  const issuer = signer.issuer && signer.issuer !== who ? `, issued by ${signer.issuer}` : '';
  const when = signer.time ? ` on ${signer.time.slice(0, 10)}` : '';
  return `${who}${org}${issuer}${when}`;
}

/** The verdict in one line: "Trusted: signed by …", "Valid: …", "Invalid: …", or "no Content Credentials". */
export function verdictText(report: CredentialsReport): string {
  if (!report.present) return 'no Content Credentials';
  switch (report.validation) {
    case 'Trusted':
      return `Trusted: signed by ${signerText(report)}, under a certificate this server trusts`;
    case 'Valid':
      return `Valid: intact, signed by ${signerText(report)} (a certificate not trusted here)`;
    default:
      return `Invalid: altered or badly signed (signed by ${signerText(report)})`;
  }
}

/** What made it: "created by trainedAlgorithmicMedia", "edited by …", one phrase per action. */
export function actionsText(report: CredentialsReport): string | null {
  const actions = report.actions ?? [];
  if (actions.length === 0) return null;
  return actions
    .map((a) => {
      const by = a.digitalSourceType ? ` by ${lastSegment(a.digitalSourceType)}` : '';
      const agent = a.softwareAgent ? ` with ${a.softwareAgent}` : '';
      return `${actionName(a.action)}${by}${agent}`;
    })
    .join('; ');
}

/** imgtask's assertion as labelled facts, in a fixed order: model, provider, seed, task, hashes, rating, review. */
export function assertionFacts(report: CredentialsReport): { label: string; value: string }[] {
  const a = report.imgtask;
  if (!a) return [];
  const facts: { label: string; value: string }[] = [];
  const add = (label: string, value: unknown) => {
    if (value === undefined) return;
    facts.push({ label, value: typeof value === 'object' ? JSON.stringify(value) : String(value) });
  };
  add('model', field(a, 'model'));
  add('provider', field(a, 'provider'));
  add('seed', field(a, 'seed'));
  add('task', field(a, 'taskId', 'task_id'));
  add('task type', field(a, 'taskType', 'task_type'));
  add('workflow SHA-256', field(a, 'workflowSha256', 'workflow_sha256'));
  add('parameters SHA-256', field(a, 'parametersSha256', 'parameters_sha256'));
  add('rating', field(a, 'rating'));
  const review = field(a, 'review') as { passed?: boolean; score?: number } | undefined;
  if (review && typeof review === 'object')
    add(
      'review',
      `${review.passed ? 'passed' : 'failed'}${review.score !== undefined ? ` (score ${review.score})` : ''}`,
    );
  add('prompt', field(a, 'prompt'));
  return facts;
}

/**
 * The whole report in words, one line each: the verdict, what made it, imgtask's facts, and when Invalid the failures.
 */
export function credentialsLines(report: CredentialsReport): string[] {
  const lines = [verdictText(report)];
  if (!report.present) return lines;
  const actions = actionsText(report);
  if (actions) lines.push(actions);
  const facts = assertionFacts(report);
  if (facts.length > 0) lines.push(facts.map((f) => `${f.label} ${f.value}`).join(', '));
  if (report.claimGenerator) lines.push(`claim generator ${report.claimGenerator}`);
  for (const ingredient of report.ingredients ?? [])
    lines.push(
      `ingredient ${ingredient.title ?? '(untitled)'}${ingredient.relationship ? ` (${ingredient.relationship})` : ''}`,
    );
  // The failures say why it is Invalid; on a Valid one they only repeat that the signer is not trusted here.
  if (report.validation !== 'Invalid') return lines;
  for (const failure of report.failures ?? [])
    lines.push(`failure ${failure.code}${failure.explanation ? `: ${failure.explanation}` : ''}`);
  return lines;
}

import type { ProvenanceStatus } from '../domain/provenance.js';
import { LOCAL_RENEW_DAYS } from './provenance-keys.js';

/** A configured certificate this close to its expiry is a doctor warning. */
export const EXPIRY_WARNING_DAYS = 30;
const DAY_MS = 86_400_000;

/**
 * `imgtask provenance show` and doctor's provenance section: the signer's state and its certificate with the days it
 * has left.
 */
export interface ProvenanceReport {
  state: ProvenanceStatus['state'];
  reason?: string;
  certificate?: NonNullable<ProvenanceStatus['certificate']> & { daysLeft: number };
}

/**
 * Doctor's view of provenance: `ok` false past expiry; `problems` fail doctor, `warnings` do not, `notes` say what is
 * well.
 */
export interface ProvenanceCheck extends ProvenanceReport {
  ok: boolean;
  problems: string[];
  warnings: string[];
  notes: string[];
}

/** The status with the whole days its certificate has left (negative: expired). */
export function provenanceReport(status: ProvenanceStatus, now: number): ProvenanceReport {
  const { certificate } = status;
  return {
    state: status.state,
    ...(status.reason ? { reason: status.reason } : {}),
    ...(certificate
      ? { certificate: { ...certificate, daysLeft: Math.floor((Date.parse(certificate.notAfter) - now) / DAY_MS) } }
      : {}),
  };
}

/**
 * Doctor's provenance check: an expired signing certificate fails it; a configured one within
 * EXPIRY_WARNING_DAYS of expiry is a warning; a local one renews itself at a start within
 * LOCAL_RENEW_DAYS of expiry, which is said instead. Signing unavailable is a warning (outputs are stored unsigned).
 */
export function checkProvenance(status: ProvenanceStatus, now: number): ProvenanceCheck {
  const report = provenanceReport(status, now);
  const problems: string[] = [];
  const warnings: string[] = [];
  const notes: string[] = [];
  const { certificate } = report;
  if (report.state === 'unavailable')
    warnings.push(
      `provenance: signing unavailable, outputs are stored unsigned: ${report.reason ?? 'no reason given'}`,
    );
  if (report.state === 'signing' && certificate) {
    const until = certificate.notAfter.slice(0, 10);
    if (certificate.daysLeft < 0) {
      problems.push(
        certificate.local
          ? `provenance: the local signing certificate expired on ${until}; restart the server to renew it`
          : `provenance: the signing certificate expired on ${until}; install a renewed one (provenance.certificate, provenance.privateKey) and restart`,
      );
    } else if (certificate.local) {
      notes.push(
        certificate.daysLeft < LOCAL_RENEW_DAYS
          ? `the local certificate expires on ${until} (${certificate.daysLeft} days left) and renews itself at the next start`
          : `the local certificate expires on ${until} (${certificate.daysLeft} days left); it renews itself at a start within ${LOCAL_RENEW_DAYS} days of that`,
      );
    } else if (certificate.daysLeft < EXPIRY_WARNING_DAYS) {
      warnings.push(
        `provenance: the signing certificate expires on ${until} (${certificate.daysLeft} days left); install a renewed one before then`,
      );
    }
  }
  return { ...report, ok: problems.length === 0, problems, warnings, notes };
}

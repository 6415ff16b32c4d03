/** @jsxImportSource hono/jsx */
import { actionsText, assertionFacts, signerText, verdictText } from '../../domain/credentials-text.js';
import type { CredentialsReport } from '../../domain/provenance.js';
import type { ConsoleDeps } from '../console-deps.js';
import type { GalleryItem } from './gallery-items.js';

/** What the full view shows of an item's credentials: the report, or why it could not be read. */
export type ItemCredentials = { report: CredentialsReport } | { error: string };

/**
 * Reads the item's stored file once and its Content Credentials (the same reader as POST
 * /image/verify, with the server's trust anchors). Never fails the page: a file gone or a reader
 * that cannot run says so in the section.
 */
export async function credentialsOf(
  deps: Pick<ConsoleDeps, 'verifySource' | 'outputSigner'>,
  item: GalleryItem,
): Promise<ItemCredentials> {
  try {
    const asset = await deps.verifySource.stored(item.kind, item.file);
    if (!asset) return { error: 'the stored file is gone' };
    return { report: await deps.outputSigner.verify(asset.data, asset.mimeType) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const VERDICT_CLASS = { Trusted: 'ok', Valid: 'ok', Invalid: 'error' } as const;

/** The full view's "Content credentials" section: the verdict, then what the manifest says. */
export function CredentialsSection({ credentials }: { credentials: ItemCredentials }) {
  if ('error' in credentials) {
    return (
      <section class="credentials" aria-labelledby="credentials-title">
        <h2 id="credentials-title">Content credentials</h2>
        <p class="muted">{`Could not be read: ${credentials.error}`}</p>
      </section>
    );
  }
  const { report } = credentials;
  const facts = assertionFacts(report);
  const actions = actionsText(report);
  return (
    <section class="credentials" aria-labelledby="credentials-title">
      <h2 id="credentials-title">Content credentials</h2>
      <p class={report.validation ? `verdict ${VERDICT_CLASS[report.validation]}` : 'verdict muted'}>
        <strong>{report.present ? report.validation : 'None'}</strong>
        {` — ${verdictText(report)}`}
      </p>
      {report.present && (
        <dl class="details">
          <dt>Signer</dt>
          <dd>{signerText(report)}</dd>
          {report.signer?.issuer && (
            <>
              <dt>Issuer</dt>
              <dd>{report.signer.issuer}</dd>
            </>
          )}
          <dt>Actions</dt>
          <dd>{actions ?? '—'}</dd>
          {facts.map((fact) => (
            <>
              <dt>{fact.label.charAt(0).toUpperCase() + fact.label.slice(1)}</dt>
              <dd>{fact.value}</dd>
            </>
          ))}
          {report.claimGenerator && (
            <>
              <dt>Claim generator</dt>
              <dd>{report.claimGenerator}</dd>
            </>
          )}
          {(report.failures ?? []).length > 0 && (
            <>
              <dt>Failures</dt>
              <dd>
                <ul>
                  {(report.failures ?? []).map((f) => (
                    <li>
                      <code>{f.code}</code>
                      {f.explanation ? ` ${f.explanation}` : ''}
                    </li>
                  ))}
                </ul>
              </dd>
            </>
          )}
        </dl>
      )}
    </section>
  );
}

/**
 * A web console credential: a one-time sign-in link (`kind: 'link'`) or a signed-in session
 * (`kind: 'session'`). Only the SHA-256 of its secret is kept (`hash`), as for API keys; `id`
 * names it in lists and for revoking. Not in dumps: sessions are short-lived and re-issued.
 */
export interface ConsoleSessionRecord {
  id: string;
  /** SHA-256 (hex) of the link's code or the session's cookie value. */
  hash: string;
  kind: 'link' | 'session';
  /** The account it acts for; null for the operator view (every account). */
  accountId: string | null;
  /** What the holder may do, as an access token's scopes. */
  scopes: string[];
  /** How a session was opened: a printed link, or a pasted access token. */
  via?: 'link' | 'token';
  /** A link's page to open after sign-in (a /console path). */
  next?: string;
  createdAt: string;
  expiresAt: string;
  /** A link's single use. */
  usedAt?: string;
  revokedAt?: string;
  /** The browser that signed in, as it named itself (shown in `console sessions list`). */
  userAgent?: string;
}

/** Scopes an API key may hold. */
export const API_KEY_SCOPES = [
  'image:generate',
  'image:rate',
  'image:alt',
  'image:remove-background',
  'image:upload',
  'image:review',
  'video:generate',
  'tasks:read',
  'tasks:cancel',
  'workflow:raw',
] as const;

/**
 * Scopes held only when asked for by name: a key (or access token) made without a scopes list
 * never gets them. `workflow:raw` posts whole ComfyUI graphs, whose custom nodes can read files
 * and run code on the server (docs/api/keys-and-scopes.md).
 */
const OPT_IN_SCOPES: readonly string[] = ['workflow:raw'];
export const isOptInScope = (value: string): boolean => OPT_IN_SCOPES.includes(value);

/** Scopes only an OAuth access token may hold: `keys` (the /api-key routes), `manage` (/webhook, /destinations). */
const TOKEN_ONLY_SCOPES = ['keys', 'manage'] as const;

export const ALL_SCOPES = [...API_KEY_SCOPES, ...TOKEN_ONLY_SCOPES] as const;

export type Scope = (typeof ALL_SCOPES)[number];

export const isScope = (value: string): value is Scope => (ALL_SCOPES as readonly string[]).includes(value);
export const isTokenOnlyScope = (value: string): boolean => (TOKEN_ONLY_SCOPES as readonly string[]).includes(value);

/** What an access token holds when issued without a scopes list: every scope but the opt-in ones. */
export const DEFAULT_TOKEN_SCOPES: readonly Scope[] = ALL_SCOPES.filter((scope) => !isOptInScope(scope));

/** Scopes an API key may hold. */
export const API_KEY_SCOPES = ['image:generate', 'image:rate', 'image:alt', 'image:remove-background', 'image:upload', 'image:review', 'video:generate', 'tasks:read', 'tasks:cancel'] as const;

/** Scopes only an OAuth access token may hold: `keys` (the /api-key routes), `manage` (/webhook, /destinations). */
const TOKEN_ONLY_SCOPES = ['keys', 'manage'] as const;

export const ALL_SCOPES = [...API_KEY_SCOPES, ...TOKEN_ONLY_SCOPES] as const;

export type Scope = (typeof ALL_SCOPES)[number];

export const isScope = (value: string): value is Scope => (ALL_SCOPES as readonly string[]).includes(value);
export const isTokenOnlyScope = (value: string): boolean => (TOKEN_ONLY_SCOPES as readonly string[]).includes(value);

export interface DestinationRecord {
  id: string;
  accountId: string;
  name: string;
  provider: { id: 'local' | 's3' | 'http' };
  /** The config without its secret fields. */
  config: Record<string, unknown>;
  /** The secret fields as JSON, sealed with the secrets key (name = the destination id). */
  sealedSecrets?: string;
  createdAt: string;
  updatedAt: string;
}

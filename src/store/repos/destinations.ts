import type { DestinationRecord } from '../records/destinations.js';

export interface DestinationRepo {
  /** Inserts or replaces; DESTINATION_NAME_TAKEN when another destination of the account has the name. */
  put(destination: DestinationRecord): Promise<DestinationRecord>;
  /**
   * Replaces a stored destination (as put does); undefined, nothing written, when it is gone (a change racing a delete
   * never brings it back).
   */
  replace(destination: DestinationRecord): Promise<DestinationRecord | undefined>;
  delete(id: string): Promise<void>;
  get(id: string): Promise<DestinationRecord | undefined>;
  getByName(accountId: string, name: string): Promise<DestinationRecord | undefined>;
  listByAccount(accountId: string): Promise<DestinationRecord[]>;
}

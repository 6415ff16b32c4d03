// Child process for a crash test: writes, snapshots, then writes on as fast as it can with the
// checkpoint refreshed every few ms, printing each account id once its write is acknowledged.
// The test SIGKILLs it mid-burst.
import { JsonStore } from '../../../../../src/store/file/json-store.js';

const dir = process.argv[2];
const store = await JsonStore.open({ dir, snapshotEveryBytes: 64 * 1024, checkpointEveryMs: 5 });
const now = new Date().toISOString();
let n = 0;
const create = () => {
  const id = `acc_${process.pid}_${n++}`;
  return store.accounts
    .create({ id, name: id, balance: 0, createdAt: now, updatedAt: now })
    .then(() => process.stdout.write(`${id}\n`));
};
await Promise.all(Array.from({ length: 500 }, create));
await store.engine.snapshot();
for (;;) await Promise.all(Array.from({ length: 20 }, create));

// `imgtask` run from the current sources through tsx: what the tests spawn (test/helpers/cli.ts
// BIN). bin/imgtask.js runs the compiled dist/, which is only as new as the last build; the tests
// never depend on it, so a stale dist/ cannot make them pass or fail. test/e2e/packaging.test.ts
// builds, packs and runs the compiled CLI itself.
import { register } from 'tsx/esm/api';

register();
await import('../../src/cli/main.ts');

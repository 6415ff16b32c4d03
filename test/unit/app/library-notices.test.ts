import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';

const ROOT = join(import.meta.dirname, '../../..');

/**
 * Builds an S3 client in a fresh Node process (where the AWS SDK's notice is emitted, once), optionally after
 * quietLibraryNotices; answers its stderr.
 */
function s3ClientStderr(quiet: boolean): string {
  const script = `
    ${quiet ? "(await import('./src/app/library-notices.ts')).quietLibraryNotices();" : ''}
    const { S3Client } = await import('@aws-sdk/client-s3');
    new S3Client({ region: 'us-east-1' });
    process.emitWarning('an unrelated warning');
  `;
  const env = { ...process.env };
  delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  delete env.NODE_OPTIONS;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  return run.stderr;
}

test('quietLibraryNotices drops the AWS SDK Node.js version notice and lets other warnings through', {
  skip: Number(process.versions.node.split('.')[0]) >= 22 && 'the SDK only warns below Node 22',
}, () => {
  assert.match(
    s3ClientStderr(false),
    /AWS SDK for JavaScript/,
    'without it, the SDK prints its notice (this check can fail)',
  );
  const quiet = s3ClientStderr(true);
  assert.doesNotMatch(quiet, /AWS SDK for JavaScript/);
  assert.match(quiet, /an unrelated warning/);
});

test('the NSFW worker thread loads its model without printing the nsfwjs or tfjs notices', async () => {
  const worker = new Worker(join(ROOT, 'src/providers/embedded/nsfw/nsfw-worker.mjs'), { stdout: true, stderr: true });
  let printed = '';
  worker.stdout.on('data', (chunk) => (printed += chunk));
  worker.stderr.on('data', (chunk) => (printed += chunk));
  const answer = new Promise<{ backend?: string; error?: string }>((resolve) => worker.once('message', resolve));
  worker.postMessage({ id: 1, warmUp: true });
  const loaded = await answer;
  assert.equal(loaded.error, undefined);
  assert.ok(loaded.backend);
  await worker.terminate();
  assert.doesNotMatch(printed, /You're using the model/);
  assert.doesNotMatch(printed, /TensorFlow\.js in Node\.js/);
  assert.equal(printed, '', 'nothing printed at all');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { credentialsLines } from '../../../src/domain/credentials-text.js';

const SIGNED = {
  present: true,
  signer: { commonName: 'imgtask signer', issuer: 'imgtask local CA', time: '2026-11-29T04:00:00Z' },
  claimGenerator: 'imgtask 1.4.0',
  actions: [
    {
      action: 'c2pa.created',
      digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
      softwareAgent: 'imgtask',
    },
  ],
  imgtask: { task_id: 'tsk_1', model: 'sdxl', seed: 42, review: { passed: false, score: 0.4 } },
  failures: [
    { code: 'signingCredential.untrusted' },
    { code: 'assertion.dataHash.mismatch', explanation: 'hashes do not match' },
  ],
};

test('a report in words: the verdict with signer, issuer and date; the actions; imgtask facts in camelCase or snake_case; failures only when Invalid', () => {
  assert.deepEqual(credentialsLines({ ...SIGNED, validation: 'Trusted' }), [
    'Trusted: signed by imgtask signer, issued by imgtask local CA on 2026-11-29, under a certificate this server trusts',
    'created by trainedAlgorithmicMedia with imgtask',
    'model sdxl, seed 42, task tsk_1, review failed (score 0.4)',
    'claim generator imgtask 1.4.0',
  ]);
  const invalid = credentialsLines({ ...SIGNED, validation: 'Invalid' });
  assert.match(invalid[0], /^Invalid: altered or badly signed \(signed by imgtask signer/);
  assert.deepEqual(invalid.slice(-2), [
    'failure signingCredential.untrusted',
    'failure assertion.dataHash.mismatch: hashes do not match',
  ]);
  assert.deepEqual(credentialsLines({ present: false }), ['no Content Credentials']);
});

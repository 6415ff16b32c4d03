import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jwtVerify, SignJWT } from 'jose';
import { signHs256 } from '../../../src/services/hs256.js';

const key = new Uint8Array(32).fill(7);
const claims = {
  tid: 'tsk_1',
  iss: 'imgtask',
  aud: 'imgtask-pat',
  sub: 'acc_1',
  iat: 1_800_000_000,
  exp: 1_800_003_600,
};

test('signHs256 produces exactly the token jose signs for the same header and claims', async () => {
  const jose = await new SignJWT({ tid: 'tsk_1' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('imgtask')
    .setAudience('imgtask-pat')
    .setSubject('acc_1')
    .setIssuedAt(claims.iat)
    .setExpirationTime(claims.exp)
    .sign(key);
  assert.equal(signHs256(claims, key), jose);
});

test('jose verifies a signHs256 token and refuses it under another key or with a changed claim', async () => {
  const token = signHs256(claims, key);
  const { payload } = await jwtVerify(token, key, {
    issuer: 'imgtask',
    audience: 'imgtask-pat',
    algorithms: ['HS256'],
    currentDate: new Date(1_800_000_100_000),
  });
  assert.equal(payload.tid, 'tsk_1');
  await assert.rejects(
    jwtVerify(token, new Uint8Array(32).fill(8), { algorithms: ['HS256'], currentDate: new Date(1_800_000_100_000) }),
  );
  const [header, , signature] = token.split('.');
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, tid: 'tsk_2' })).toString('base64url')}.${signature}`;
  await assert.rejects(jwtVerify(forged, key, { algorithms: ['HS256'], currentDate: new Date(1_800_000_100_000) }));
});

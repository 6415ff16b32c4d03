/**
 * The certificate and key outputs are signed with (docs/provenance.md#certificates): the
 * configured ones, checked as C2PA verifiers check them, or a local CA and signing certificate
 * made under the data dir's keys/ at first start and renewed from the same CA before they expire.
 */
import { createPrivateKey, type KeyObject, X509Certificate as NodeCertificate, randomUUID } from 'node:crypto';
import { link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { PemSource, ProvenanceConfig } from '../config/schema.js';
import { ConfigError } from '../domain/config-error.js';
import type { ProvenanceStatus } from '../domain/provenance.js';
import {
  describeCertificate,
  describeUsage,
  makeLocalCa,
  makeLocalLeaf,
  type PemPair,
  pemBlocks,
} from './provenance-certificates.js';

/** The signing algorithms of c2pa-node (its SigningAlg). */
export type SigningAlgorithm = 'es256' | 'es384' | 'es512' | 'ps256' | 'ed25519';

export interface SigningKeys {
  /** The leaf certificate first, then the certificates that issued it (PEM). */
  chainPem: string;
  /** The leaf's private key, PKCS#8 PEM. */
  privateKeyPem: string;
  /** The algorithm the key signs with. */
  alg: SigningAlgorithm;
  /** True: the local certificate made under keys/ (verifiers show it as untrusted). */
  local: boolean;
  /** The CA certificates reading credentials trusts: the local CA (when there is one) and provenance.trustAnchors. */
  anchorsPem: string[];
  certificate: NonNullable<ProvenanceStatus['certificate']>;
}

export interface SigningKeyOptions {
  provenance: ProvenanceConfig;
  /** The data dir's root: the local certificate lives in its keys/. */
  dataDir: string;
  /**
   * The folder a relative `{ file }` is read from (loadConfig already makes them absolute; default the working folder).
   */
  configDir?: string;
  /** A secret of the encrypted store, by name. */
  secret(name: string): Promise<string | undefined>;
  /** An environment variable, by name (for `{ env }` PEMs; config/environment reads the process's). */
  env(name: string): string | undefined;
  log: { info(msg: string): void; warn(msg: string): void };
  /** Now (tests); default the clock. */
  now?: () => Date;
}

/** A local signing certificate is made anew this many days before it expires (at a start). */
export const LOCAL_RENEW_DAYS = 30;
const DAY_MS = 86_400_000;

/**
 * Where the local certificate lives: the CA (certificate and key) and the signing certificate (chain and key), one file
 * each so each is written at once.
 */
export const localKeyFiles = (dataDir: string) => ({
  ca: join(dataDir, 'keys', 'provenance-ca.pem'),
  signing: join(dataDir, 'keys', 'provenance-signing.pem'),
});

/**
 * Loads (or, without a configured certificate, makes) the signing certificate and key; throws a ConfigError naming what
 * is wrong with a configured one.
 */
export async function loadSigningKeys(options: SigningKeyOptions): Promise<SigningKeys> {
  const { provenance } = options;
  const now = options.now?.() ?? new Date();
  const extraAnchors = await readAnchors(options);
  if (provenance.certificate && provenance.privateKey) {
    const chainPem = await readPem(provenance.certificate, 'provenance.certificate', options);
    const keyPem = await readPem(provenance.privateKey, 'provenance.privateKey', options);
    const checked = checkConfiguredCertificate(chainPem, keyPem, now);
    const localCa = await readLocalCa(options.dataDir);
    return {
      ...checked,
      local: false,
      anchorsPem: [...(localCa ? [localCa.certificatePem] : []), ...extraAnchors],
      certificate: describeCertificate(checked.leaf, false),
    };
  }
  const local = await localKeys(options, now);
  return { ...local, anchorsPem: [local.caPem, ...extraAnchors] };
}

/**
 * The CA certificates verify trusts when signing is off: the local CA when one was made, and provenance.trustAnchors
 * (nothing is made).
 */
export async function loadTrustAnchors(options: Omit<SigningKeyOptions, 'log' | 'now'>): Promise<string[]> {
  const localCa = await readLocalCa(options.dataDir);
  return [...(localCa ? [localCa.certificatePem] : []), ...(await readAnchors(options))];
}

/** provenance.trustAnchors' certificates (none when not set). */
async function readAnchors(
  options: Pick<SigningKeyOptions, 'provenance' | 'secret' | 'env' | 'configDir'>,
): Promise<string[]> {
  if (!options.provenance.trustAnchors) return [];
  const anchors = pemBlocks(
    await readPem(options.provenance.trustAnchors, 'provenance.trustAnchors', options),
    'CERTIFICATE',
  );
  if (anchors.length === 0)
    throw new ConfigError(
      'config: provenance.trustAnchors: no PEM certificate found (a -----BEGIN CERTIFICATE----- block)',
    );
  return anchors;
}

/** Reads a PEM from where the config says: a secret, an environment variable or a file. */
async function readPem(
  source: PemSource,
  key: string,
  options: Pick<SigningKeyOptions, 'secret' | 'env' | 'configDir'>,
): Promise<string> {
  if ('secret' in source) {
    const value = await options.secret(source.secret);
    if (value === undefined)
      throw new ConfigError(
        `config: ${key}: no secret "${source.secret}" (set it with: imgtask secrets set ${source.secret} < file.pem)`,
      );
    return value;
  }
  if ('env' in source) {
    const value = options.env(source.env);
    if (!value) throw new ConfigError(`config: ${key}: the environment variable ${source.env} is not set`);
    return value;
  }
  const path = isAbsolute(source.file) ? source.file : resolve(options.configDir ?? process.cwd(), source.file);
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `config: ${key}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
}

/**
 * EKUs a C2PA validator accepts on a signing certificate (C2PA 2.x, 14.5.2): emailProtection, documentSigning,
 * timeStamping, OCSPSigning, Microsoft's and C2PA's own.
 */
const ACCEPTED_EKUS: Record<string, string> = {
  '1.3.6.1.5.5.7.3.4': 'emailProtection',
  '1.3.6.1.5.5.7.3.36': 'documentSigning',
  '1.3.6.1.5.5.7.3.8': 'timeStamping',
  '1.3.6.1.5.5.7.3.9': 'OCSPSigning',
  '1.3.6.1.4.1.311.76.59.1.9': 'Microsoft C2PA signing',
  '1.3.6.1.4.1.62558.2.1': 'C2PA claim signing',
};

const refuse = (problem: string, fix: string) =>
  new ConfigError(`config: provenance.certificate: ${problem}; ${fix} (docs/provenance.md#certificates)`);

/**
 * The checks a C2PA validator makes of a signing certificate, made at start so a refused one is named then, not at the
 * first output.
 */
function checkConfiguredCertificate(
  chainPem: string,
  keyPem: string,
  now: Date,
): { chainPem: string; privateKeyPem: string; alg: SigningAlgorithm; leaf: NodeCertificate } {
  const blocks = pemBlocks(chainPem, 'CERTIFICATE');
  if (blocks.length === 0)
    throw refuse(
      'no PEM certificate found (a -----BEGIN CERTIFICATE----- block)',
      'give the certificate chain in PEM, the signing certificate first',
    );
  let leaf: NodeCertificate;
  try {
    leaf = new NodeCertificate(blocks[0] as string);
  } catch (err) {
    throw refuse(
      `the first certificate does not parse (${(err as Error).message})`,
      'give the certificate chain in PEM, the signing certificate first',
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch (err) {
    throw new ConfigError(
      `config: provenance.privateKey: not a private key in PEM (${(err as Error).message}); give the key in PKCS#8 PEM (-----BEGIN PRIVATE KEY-----)`,
    );
  }
  const alg = algorithmOf(key);
  if (!leaf.checkPrivateKey(key))
    throw new ConfigError(
      'config: provenance.privateKey: the key does not match the certificate (its public key differs); give the key the certificate was issued for',
    );
  const usage = describeUsage(blocks[0] as string);
  if (usage.ca)
    throw refuse(
      'the first certificate is a CA certificate (basicConstraints CA:TRUE)',
      'give the signing (end-entity) certificate first, then the CA certificates that issued it',
    );
  if (leaf.subject === leaf.issuer && leaf.verify(leaf.publicKey)) {
    throw refuse(
      'the certificate is self-signed; C2PA verifiers refuse a self-signed signer',
      'use a certificate issued by a CA (or leave certificate and privateKey out for a local CA)',
    );
  }
  if (!usage.digitalSignature)
    throw refuse(
      'the certificate has no keyUsage digitalSignature; C2PA signers need it',
      'ask your CA for a document-signing certificate (keyUsage: digitalSignature)',
    );
  if (usage.eku === null)
    throw refuse(
      'the certificate has no extendedKeyUsage; C2PA signers need emailProtection or documentSigning',
      'ask your CA for a document-signing certificate',
    );
  if (!usage.eku.some((oid) => ACCEPTED_EKUS[oid])) {
    throw refuse(
      `the certificate's extendedKeyUsage (${usage.eku.join(', ')}) has none C2PA accepts; C2PA signers need emailProtection or documentSigning`,
      'ask your CA for a document-signing certificate',
    );
  }
  const notBefore = new Date(leaf.validFrom);
  const notAfter = new Date(leaf.validTo);
  if (notAfter.getTime() <= now.getTime())
    throw refuse(`the certificate expired on ${notAfter.toISOString()}`, 'install a renewed certificate');
  if (notBefore.getTime() > now.getTime())
    throw refuse(
      `the certificate is not valid before ${notBefore.toISOString()}`,
      "check the machine's clock, or wait until then",
    );
  const privateKeyPem = key.export({ type: 'pkcs8', format: 'pem' }) as string;
  return { chainPem: blocks.join(''), privateKeyPem, alg, leaf };
}

/** The c2pa-node algorithm a key signs with, or a refusal for a key type C2PA does not allow. */
function algorithmOf(key: KeyObject): SigningAlgorithm {
  const type = key.asymmetricKeyType;
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'es256';
    if (curve === 'secp384r1') return 'es384';
    if (curve === 'secp521r1') return 'es512';
    throw new ConfigError(
      `config: provenance.privateKey: an EC key on ${curve ?? 'an unnamed curve'}; C2PA signs with P-256, P-384 or P-521`,
    );
  }
  if (type === 'rsa' || type === 'rsa-pss') {
    if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048)
      throw new ConfigError(
        'config: provenance.privateKey: an RSA key shorter than 2048 bits; C2PA needs 2048 or more',
      );
    return 'ps256';
  }
  if (type === 'ed25519') return 'ed25519';
  throw new ConfigError(
    `config: provenance.privateKey: a ${type} key; C2PA signs with EC (P-256, P-384, P-521), RSA (PS256) or Ed25519 keys`,
  );
}

interface LocalKeys {
  chainPem: string;
  privateKeyPem: string;
  alg: SigningAlgorithm;
  local: true;
  caPem: string;
  certificate: NonNullable<ProvenanceStatus['certificate']>;
}

/** The local CA under keys/, when one was made (a configured certificate still trusts it for outputs signed before). */
async function readLocalCa(dataDir: string): Promise<PemPair | null> {
  const text = await readFile(localKeyFiles(dataDir).ca, 'utf8').catch(() => null);
  if (text === null) return null;
  const certificatePem = pemBlocks(text, 'CERTIFICATE')[0];
  const keyPem = pemBlocks(text, 'PRIVATE KEY')[0];
  return certificatePem && keyPem ? { certificatePem, keyPem } : null;
}

/**
 * The local CA and signing certificate: read, made at the first start (saying so once, as a warning), or the signing
 * certificate renewed near its expiry.
 */
async function localKeys(options: SigningKeyOptions, now: Date): Promise<LocalKeys> {
  const files = localKeyFiles(options.dataDir);
  await mkdir(join(options.dataDir, 'keys'), { recursive: true, mode: 0o700 });
  let ca = await readLocalCa(options.dataDir);
  let madeCa = false;
  if (!ca || expiresWithin(ca.certificatePem, now, LOCAL_RENEW_DAYS)) {
    const made = await makeLocalCa(now);
    // Two first starts on one data dir (a fleet sharing it): the one that links its file first wins, the other reads
    // it.
    if (ca) await replace(files.ca, made.certificatePem + made.keyPem);
    madeCa = ca !== null || (await createOnce(files.ca, made.certificatePem + made.keyPem));
    ca = madeCa ? made : await readLocalCa(options.dataDir);
    if (!ca)
      throw new Error(`provenance: ${files.ca} holds no CA certificate and key; remove it to make a new local CA`);
  }
  const current = madeCa ? null : await readFile(files.signing, 'utf8').catch(() => null);
  let keys = current === null ? null : localSigning(current, ca, now);
  if (!keys) {
    const leaf = await makeLocalLeaf(ca, now);
    const text = leaf.certificatePem + ca.certificatePem + leaf.keyPem;
    if (current === null && !madeCa && !(await createOnce(files.signing, text)))
      keys = localSigning(await readFile(files.signing, 'utf8'), ca, now);
    if (!keys) {
      if (madeCa || current !== null) await replace(files.signing, text);
      keys = localSigning(text, ca, now) as LocalKeys;
      if (current !== null)
        options.log.info(
          `provenance: renewed the local signing certificate (valid until ${keys.certificate.notAfter})`,
        );
    }
  }
  if (madeCa) {
    options.log.warn(
      `provenance: made a local CA and signing certificate in ${join(options.dataDir, 'keys')} (keep provenance-ca.pem private: it holds the CA's key). Outputs are signed, but verifiers show their credentials as untrusted, like a self-signed TLS certificate, until you install a certificate from a C2PA-trusted CA: see docs/provenance.md#certificates`,
    );
  } else {
    options.log.info(
      `provenance: signing with the local certificate (valid until ${keys.certificate.notAfter}); verifiers show it as untrusted (docs/provenance.md#certificates)`,
    );
  }
  return keys;
}

/** Whether a certificate has fewer than `days` days left. */
const expiresWithin = (pem: string, now: Date, days: number): boolean =>
  new Date(new NodeCertificate(pem).validTo).getTime() - now.getTime() < days * DAY_MS;

/**
 * The local signing certificate in `text`, when it was issued by `ca` and has more than LOCAL_RENEW_DAYS left; null:
 * make a new one.
 */
function localSigning(text: string, ca: PemPair, now: Date): LocalKeys | null {
  const [leafPem] = pemBlocks(text, 'CERTIFICATE');
  const keyPem = pemBlocks(text, 'PRIVATE KEY')[0];
  if (!leafPem || !keyPem) return null;
  const leaf = new NodeCertificate(leafPem);
  const caCert = new NodeCertificate(ca.certificatePem);
  if (!leaf.checkIssued(caCert) || !leaf.verify(caCert.publicKey)) return null;
  if (expiresWithin(leafPem, now, LOCAL_RENEW_DAYS)) return null;
  return {
    chainPem: leafPem + ca.certificatePem,
    privateKeyPem: keyPem,
    alg: 'es256',
    local: true,
    caPem: ca.certificatePem,
    certificate: describeCertificate(leaf, true),
  };
}

/**
 * Writes `path` only if it does not exist yet (a temp file linked into place, 0600): false when another start made it
 * first.
 */
async function createOnce(path: string, text: string): Promise<boolean> {
  // Unique per call: two loads in one process within a millisecond must not share a temp file.
  const temp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  try {
    await link(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(temp).catch(() => {});
  }
}

/** Replaces `path` at once (a temp file renamed over it, 0600). */
async function replace(path: string, text: string): Promise<void> {
  // Unique per call: two loads in one process within a millisecond must not share a temp file.
  const temp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  await rename(temp, path);
}

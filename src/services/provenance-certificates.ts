/**
 * Making and reading X.509 certificates for C2PA signing (@peculiar/x509 over node's Web Crypto):
 * the local CA and its signing certificate, and what a certificate says of itself.
 */
// @peculiar/x509 builds on tsyringe, which needs the Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import { type X509Certificate as NodeCertificate, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { ProvenanceStatus } from '../domain/provenance.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

/** A certificate and its private key (PKCS#8), both PEM. */
export interface PemPair {
  certificatePem: string;
  keyPem: string;
}

const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
/** The local CA lasts 10 years, its signing certificates 1 year each (renewed from it before they expire). */
const CA_DAYS = 3650;
const LEAF_DAYS = 365;
/** id-kp-emailProtection and id-kp-documentSigning: the EKUs C2PA validators look for. */
const EMAIL_PROTECTION = '1.3.6.1.5.5.7.3.4';
const DOCUMENT_SIGNING = '1.3.6.1.5.5.7.3.36';

/** The PEM blocks of `label` in `text`, each ending with a newline. */
export function pemBlocks(text: string, label: 'CERTIFICATE' | 'PRIVATE KEY'): string[] {
  const pattern = new RegExp(`-----BEGIN ${label}-----[\\s\\S]*?-----END ${label}-----`, 'g');
  return [...text.matchAll(pattern)].map((match) => `${match[0]}\n`);
}

const keyToPem = async (key: CryptoKey): Promise<string> =>
  `${x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY')}\n`;
const certToPem = (cert: x509.X509Certificate): string => `${cert.toString('pem')}\n`;
const newKeys = async (): Promise<CryptoKeyPair> =>
  (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])) as CryptoKeyPair;
const randomSerial = (): string =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');

/** A new local CA: EC P-256, CA:TRUE (no intermediates below it), keyCertSign, 10 years. */
export async function makeLocalCa(now: Date): Promise<PemPair> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: 'CN=imgtask local CA, O=imgtask (local)',
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + CA_DAYS * DAY_MS),
    keys,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certificatePem: certToPem(cert), keyPem: await keyToPem(keys.privateKey) };
}

/**
 * A new signing certificate from the local CA: EC P-256, digitalSignature, emailProtection and documentSigning,
 * CA:FALSE, 1 year.
 */
export async function makeLocalLeaf(ca: PemPair, now: Date): Promise<PemPair> {
  const caCert = new x509.X509Certificate(ca.certificatePem);
  const caKey = await webcrypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(ca.keyPem), EC_P256, false, [
    'sign',
  ]);
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: 'CN=imgtask local signer, O=imgtask (local)',
    issuer: caCert.subject,
    notBefore: new Date(now.getTime() - 60_000),
    // Never past the CA's own expiry (a chain is only as valid as its CA).
    notAfter: new Date(Math.min(now.getTime() + LEAF_DAYS * DAY_MS, caCert.notAfter.getTime())),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([EMAIL_PROTECTION, DOCUMENT_SIGNING]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { certificatePem: certToPem(cert), keyPem: await keyToPem(keys.privateKey) };
}

/**
 * What a signer's checks read of a certificate: basicConstraints CA, keyUsage digitalSignature and
 * the EKU OIDs (null: no extendedKeyUsage extension). Node's X509Certificate has no keyUsage bits,
 * and its `ca` is false for a CA:TRUE certificate without keyCertSign.
 */
export function describeUsage(pem: string): { ca: boolean; digitalSignature: boolean; eku: string[] | null } {
  const cert = new x509.X509Certificate(pem);
  const keyUsage = cert.getExtension(x509.KeyUsagesExtension);
  const eku = cert.getExtension(x509.ExtendedKeyUsageExtension);
  return {
    ca: cert.getExtension(x509.BasicConstraintsExtension)?.ca === true,
    digitalSignature: keyUsage !== null && (keyUsage.usages & x509.KeyUsageFlags.digitalSignature) !== 0,
    eku: eku ? Array.from(eku.usages, String) : null,
  };
}

/** What ProvenanceStatus says of a certificate. */
export function describeCertificate(
  cert: NodeCertificate,
  local: boolean,
): NonNullable<ProvenanceStatus['certificate']> {
  return {
    subject: cert.subject.replaceAll('\n', ', '),
    issuer: cert.issuer.replaceAll('\n', ', '),
    notBefore: new Date(cert.validFrom).toISOString(),
    notAfter: new Date(cert.validTo).toISOString(),
    sha256: cert.fingerprint256.replaceAll(':', '').toLowerCase(),
    serial: cert.serialNumber.toLowerCase(),
    local,
  };
}

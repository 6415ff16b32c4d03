import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as never);

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

/** A C2PA signing chain made here: an EC P-256 CA and a leaf it issued (PEM; the key in PKCS#8). */
export interface TestChain {
  /** Leaf then CA, as a signer takes them. */
  chainPem: string;
  privateKeyPem: string;
  caPem: string;
  leafPem: string;
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64.trimEnd()}\n-----END ${label}-----\n`;
}

/**
 * Makes a CA and a leaf fit for C2PA signing (keyUsage digitalSignature, EKU emailProtection,
 * CA:FALSE); `leafEku: false` leaves the EKU out (a signer refuses such a leaf); `leafDays` is
 * how long the leaf has left (default 90; negative: expired that many days ago); `leafCa` makes
 * the leaf a CA certificate (CA:TRUE).
 */
export async function makeTestChain(
  options: { commonName?: string; leafEku?: boolean; leafDays?: number; leafCa?: boolean } = {},
): Promise<TestChain> {
  const now = Date.now();
  const caKeys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=imgtask test CA, O=imgtask',
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 365 * DAY),
    signingAlgorithm: EC,
    keys: caKeys as webcrypto.CryptoKeyPair,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create((caKeys as webcrypto.CryptoKeyPair).publicKey),
    ],
  });
  const leafKeys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: `CN=${options.commonName ?? 'imgtask test signer'}, O=imgtask`,
    issuer: ca.subject,
    notBefore: new Date(now - Math.max(1, -(options.leafDays ?? 0) + 30) * DAY),
    notAfter: new Date(now + (options.leafDays ?? 90) * DAY),
    signingAlgorithm: EC,
    publicKey: leafKeys.publicKey,
    signingKey: (caKeys as webcrypto.CryptoKeyPair).privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(options.leafCa === true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ...(options.leafEku === false
        ? []
        : [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.emailProtection])]),
      await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ],
  });
  const caPem = ca.toString('pem');
  const leafPem = leaf.toString('pem');
  return {
    chainPem: `${leafPem}\n${caPem}\n`,
    privateKeyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey)),
    caPem: `${caPem}\n`,
    leafPem: `${leafPem}\n`,
  };
}

/**
 * A self-signed certificate otherwise fit for signing (digitalSignature, emailProtection, CA:FALSE), with its key: C2PA
 * refuses it.
 */
export async function makeSelfSignedLeaf(): Promise<{ certificatePem: string; privateKeyPem: string }> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '03',
    name: 'CN=imgtask self-signed, O=imgtask',
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 90 * DAY),
    signingAlgorithm: EC,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.emailProtection]),
    ],
  });
  return {
    certificatePem: `${cert.toString('pem')}\n`,
    privateKeyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
  };
}

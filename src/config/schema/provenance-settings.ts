import { z } from 'zod';

// C2PA provenance: where its PEMs come from, and its settings.

/**
 * Where a PEM (certificate chain, private key, trust anchors) is read from, as provider keys are
 * given: a secret of the encrypted store, an environment variable, or a file.
 */
export const PemSourceSchema = z
  .union([
    z.strictObject({
      secret: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a secret name')
        .describe('The name of a secret in the encrypted store (`imgtask secrets set <name>`) that holds the PEM.'),
    }),
    z.strictObject({
      env: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
        .describe('The name of an environment variable that holds the PEM.'),
    }),
    z.strictObject({
      file: z
        .string()
        .min(1)
        .describe("A PEM file's path, relative to the config file's folder (the working folder without one)."),
    }),
  ])
  .describe(
    'A PEM given as `{ "secret": "<name>" }` (the encrypted secret store), `{ "env": "<VARIABLE>" }` or `{ "file": "<path>" }` (relative to the config file\'s folder); one not set or not readable stops the start with a config error.',
  );

/** provenance: C2PA Content Credentials on every stored output (docs/provenance.md). */
export const ProvenanceSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Sign every stored image and video with C2PA Content Credentials; false: outputs are stored unsigned (their items say `provenance: unsigned`).',
      ),
    certificate: PemSourceSchema.optional().describe(
      "The signing certificate chain (PEM: the leaf first, then its intermediates), from a CA that C2PA verifiers trust; with privateKey. Without it, the first start makes a local CA and certificate under the data dir's keys/ (verifiers show them as untrusted).",
    ),
    privateKey: PemSourceSchema.optional().describe(
      "The certificate's private key (PKCS#8 PEM, EC P-256/P-384, RSA-PSS or Ed25519); with certificate.",
    ),
    timestampUrl: z
      .string()
      .url()
      .regex(/^https?:\/\//i, 'an http(s) URL')
      .optional()
      .describe(
        'An RFC 3161 timestamp authority (http or https URL) whose timestamp each signature carries, so it stays valid after the certificate expires; none: no timestamp.',
      ),
    includePrompt: z
      .boolean()
      .default(false)
      .describe(
        "Put the request's prompt in the manifest's imgtask assertion; false (the default): the prompt stays out of the credentials.",
      ),
    trustAnchors: PemSourceSchema.optional().describe(
      'Extra CA certificates (PEM, one or more) that reading credentials (POST /image/verify, imgtask verify) trusts, beside the local CA: a credential signed under one reads as Trusted.',
    ),
  })
  .refine((p) => (p.certificate === undefined) === (p.privateKey === undefined), {
    message: 'give certificate and privateKey together, or neither (a local certificate)',
    path: ['privateKey'],
  });

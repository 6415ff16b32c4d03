import { z } from 'zod';
import { Duration } from './setting-fields.js';

// The auth section (access tokens, an external issuer) and the console section (its sessions).

export const AuthSection = z.strictObject({
  accessTokenTtl: Duration,
  externalIssuer: z
    .strictObject({
      issuer: z.string().min(1).describe('The issuer (`iss` claim) an external token must name, exactly.'),
      jwksUrl: z
        .url({ protocol: /^https?$/ })
        .describe(
          "The http(s) URL of the issuer's signing keys (a JWKS), fetched and cached while the URL stays the same.",
        ),
      audience: z
        .string()
        .min(1)
        .optional()
        .describe('The audience (`aud` claim) an external token must name; absent: the audience is not checked.'),
      accountClaim: z
        .string()
        .min(1)
        .default('sub')
        .describe(
          'The claim holding the account id or name; a token without it (or with it empty) is refused with 401 UNAUTHORIZED.',
        ),
    })
    .nullable(),
});

/** The web console at /console: on or off (a reload applies it), and how long a session lasts. */
export const ConsoleSection = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** A session's lifetime after sign-in; one opened with an access token never outlives the token. */
    sessionTtl: Duration.default('12h'),
  })
  .default({ enabled: true, sessionTtl: '12h' });

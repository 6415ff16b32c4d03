import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { credentialsLines } from '../../domain/credentials-text.js';
import type { CredentialsReport } from '../../domain/provenance.js';
import { clientOf } from '../client-context.js';
import { EXIT, print, UsageError } from '../output.js';
import { command } from '../run.js';

/** Exit status of a file that carries no Content Credentials (docs/cli.md#client-cli-and-dashboard). */
const NO_CREDENTIALS = 5;

/** 0 for Valid or Trusted credentials, 4 for Invalid ones (as a failed review), 5 for none. */
function verifyExitCode(report: CredentialsReport): number {
  if (!report.present) return NO_CREDENTIALS;
  return report.validation === 'Invalid' ? EXIT.itemsFailed : EXIT.ok;
}

export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .argument('<source>', 'a local file, an http(s) URL, or an uploaded img_ id')
    .description(
      "Read and validate an image's or video's Content Credentials (C2PA): a local file, an http(s) URL or an uploaded img_ id; free",
    )
    .option('--json', 'print the report as one JSON document')
    .addHelpText(
      'after',
      '\nThe server reads it, with its trust anchors: a URL through its SSRF guard, a local file sent as the body (nothing stored).\nExit status: 0 Valid or Trusted, 4 Invalid, 5 no Content Credentials.',
    )
    .action(
      command(
        async (ctx, source: string) => {
          const client = await clientOf(ctx);
          let report: CredentialsReport;
          if (/^https?:\/\//i.test(source)) report = await client.verify({ url: source });
          else if (/^img_[0-9A-Za-z]{22}$/.test(source) && !existsSync(source))
            report = await client.verify({ id: source });
          else {
            if (!existsSync(source)) throw new UsageError(`no file ${source} (and not an http(s) URL or an img_ id)`);
            report = await client.verifyFile(await readFile(source));
          }
          print({ json: ctx.json }, report, () => credentialsLines(report).join('\n'));
          return verifyExitCode(report);
        },
        // Words unless --json, on a terminal or not: the verdict is what a script greps or a log keeps.
        { json: 'flag' },
      ),
    );
}

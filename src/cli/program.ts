import { readFileSync } from 'node:fs';
import { Argument, type Command } from 'commander';
import { registerAccountCommands } from './commands/accounts.js';
import { registerAltCommand } from './commands/alt.js';
import { registerConsoleCommands } from './commands/console.js';
import { registerDashboardCommand } from './commands/dashboard.js';
import { registerDestinationCommands } from './commands/destinations.js';
import { registerGenerateCommand } from './commands/generate.js';
import { registerKeyCommands } from './commands/keys.js';
import { registerLedgerCommands } from './commands/ledger.js';
import { registerMigrateCommand } from './commands/migrate.js';
import { registerProvenanceCommands } from './commands/provenance.js';
import { registerQueueCommands } from './commands/queues.js';
import { registerRateCommand } from './commands/rate.js';
import { registerRemoveBgCommand } from './commands/remove-bg.js';
import { registerReviewCommand } from './commands/review.js';
import { registerSecretCommands } from './commands/secrets.js';
import { registerServeCommand } from './commands/serve.js';
import { registerStoreCommands } from './commands/store.js';
import { registerTaskCommands } from './commands/tasks.js';
import { registerTokenCommands } from './commands/tokens.js';
import { registerUploadCommand } from './commands/upload.js';
import { registerUsageCommand } from './commands/usage.js';
import { registerVerifyCommand } from './commands/verify.js';
import { registerVideoCommand } from './commands/video.js';
import { registerWebhookCommands } from './commands/webhooks.js';
import { registerWorkerCommand } from './commands/worker.js';
import { completionScript, SHELLS, type Shell } from './completion.js';
import { ImgtaskCommand } from './imgtask-command.js';

// Only what defines the commands loads here; each action imports what it needs (the server, the
// store, the models, Ink) when it runs, so `imgtask --help` and `--version` start fast.

/** The package's version, from package.json beside src/ and dist/. */
const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The command tree of `imgtask`, built but not parsed (main.ts parses it; scripts/docs/generate.ts documents it). */
export function buildProgram(): Command {
  const program = new ImgtaskCommand('imgtask')
    .description('Self-hosted asynchronous image task service')
    .version(version, '-V, --version', 'print the version')
    .option('--data <dir>', 'data dir (env IMGTASK_DATA, default ./data)')
    .option('--config <file>', 'config file merged over config/default.json (env IMGTASK_CONFIG)')
    .option(
      '--url <url>',
      'the server, for client commands (env IMGTASK_URL; default: the server running on the data dir, else http://127.0.0.1:8080)',
    )
    .option('--key <key>', 'API key (or PAT for tasks show/watch), for client commands (env IMGTASK_API_KEY)')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      // One line for usage errors, never the whole help.
      outputError: (text, write) => write(`imgtask: ${text.replace(/^error: /, '').trim()}\n`),
    });

  registerServeCommand(program);
  registerWorkerCommand(program);
  registerAccountCommands(program);
  registerKeyCommands(program);
  registerTokenCommands(program);
  registerConsoleCommands(program);
  registerLedgerCommands(program);
  registerUsageCommand(program);
  registerQueueCommands(program);
  registerSecretCommands(program);
  registerMigrateCommand(program);
  registerStoreCommands(program);
  registerWebhookCommands(program);
  registerDestinationCommands(program);
  // The client commands, in the order help lists them.
  registerGenerateCommand(program);
  registerRateCommand(program);
  registerAltCommand(program);
  registerRemoveBgCommand(program);
  registerUploadCommand(program);
  registerTaskCommands(program);
  registerVideoCommand(program);
  registerReviewCommand(program);
  registerVerifyCommand(program);
  registerProvenanceCommands(program);
  registerDashboardCommand(program);
  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      '\nbash: source <(imgtask completion bash)\nzsh:  source <(imgtask completion zsh)\nfish: imgtask completion fish | source',
    )
    .action((shell: Shell) => {
      process.stdout.write(completionScript(program, shell));
    });
  for (const command of program.commands) {
    command.exitOverride();
    for (const sub of command.commands) sub.exitOverride();
  }
  return program;
}

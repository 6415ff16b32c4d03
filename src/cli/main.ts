import { CommanderError } from 'commander';
import { EXIT } from './output.js';
import { buildProgram } from './program.js';

const program = buildProgram();

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    const helpShown =
      err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version';
    process.exit(helpShown ? EXIT.ok : EXIT.usage);
  }
  process.stderr.write(`imgtask: ${(err as Error).message}\n`);
  process.exit(EXIT.failure);
}

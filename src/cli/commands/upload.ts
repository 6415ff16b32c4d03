import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { clientCommand } from '../client-command.js';
import { print, UsageError } from '../output.js';

export function registerUploadCommand(program: Command): void {
  program
    .command('upload <files...>')
    .description('Upload 1 to 10 images; prints their ids and service URLs')
    .option('--json', 'print one JSON document')
    .action(
      clientCommand(async (client, json, files: string[]) => {
        for (const file of files) if (!existsSync(file)) throw new UsageError(`no file ${file}`);
        const uploaded = await client.upload(
          await Promise.all(files.map(async (name) => ({ name, data: await readFile(name) }))),
        );
        print({ json }, uploaded, uploaded.map((f) => `${f.id}  ${f.size}  ${f.service_url}`).join('\n'));
      }),
    );
}

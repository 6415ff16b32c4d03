import type { Command } from 'commander';
import type { Client } from '../../client/http-client.js';
import { clientCommand } from '../client-command.js';
import { print } from '../output.js';
import { taskListQuery } from '../task-flags.js';
import { followAndReport, reportSettled } from '../task-follow.js';
import { describeTask } from '../task-report.js';

/** The action of `tasks <verb> <id>`: one call on the task, its answer printed (JSON, or `text` of it). */
const onTask = <T>(call: (client: Client, id: string) => Promise<T>, text: (task: T) => string) =>
  clientCommand(async (client, json, id: string) => {
    const task = await call(client, id);
    print({ json }, task, () => text(task));
  });

export function registerTaskCommands(program: Command): void {
  const tasks = program.command('tasks').description('Tasks: list, show, watch, cancel, delete');
  tasks
    .command('list')
    .description("The account's tasks, newest first")
    .option('--status <status>', 'pending, completed or failed')
    .option('--type <type>', 'a task type')
    .option('--limit <n>', '1 to 100', '20')
    .option('--json', 'print one JSON document')
    .action(
      clientCommand(async (client, json, opts: { status?: string; type?: string; limit: string }) => {
        const page = await client.tasks(taskListQuery(opts));
        print(
          { json },
          page,
          page.tasks.map((t) => `${t.id}  ${t.type.padEnd(24)} ${t.status.padEnd(9)} ${t.cost ?? ''}`).join('\n') ||
            'no tasks',
        );
      }),
    );
  tasks
    .command('show <id>')
    .description('One task (a PAT given as --key reads its status and result)')
    .option('--json', 'print one JSON document')
    .action(onTask((client, id) => client.task(id), describeTask));
  tasks
    .command('watch <id>')
    .description('Follow a task until it settles (works with a PAT as --key)')
    .option('--out <dir>', 'save its images or videos here')
    .option('--json', 'print one JSON document')
    .action(
      clientCommand(async (client, json, id: string, opts: { out?: string }) => {
        if ((await client.status(id)) === 'pending')
          return followAndReport(client, id, 'task', 1, { json, out: opts.out });
        return reportSettled(client, await client.task(id), { json, out: opts.out });
      }),
    );
  tasks
    .command('cancel <id>')
    .description('Cancel a pending task (API key with tasks:cancel); prints its final status')
    .option('--json', 'print one JSON document')
    .action(
      onTask(
        (client, id) => client.cancel(id),
        (task) => `${task.id} cancelled: ${task.status}, charged ${task.cost} USD`,
      ),
    );
  tasks
    .command('delete <id>')
    .description(
      "Delete a task's outputs and text (API key with tasks:cancel; a pending task is cancelled first); its cost and status are kept",
    )
    .option('--json', 'print one JSON document')
    .action(
      onTask(
        (client, id) => client.deleteTask(id),
        (task) =>
          `${task.id} deleted: its outputs, prompt, metadata and result are gone (${task.status}, charged ${task.cost} USD, kept for accounting)`,
      ),
    );
}

import { thisCli } from './invocation.js';

/**
 * What a create without --watch prints on a terminal: the task and its reserve, the command
 * that follows it (as this CLI can be typed here), and its public access token, named.
 */
export function createdText(created: {
  taskId: string;
  estimatedCost?: string;
  access?: { publicAccessToken: string };
}): string {
  const reserved = created.estimatedCost === undefined ? '' : ` (reserved ${created.estimatedCost} USD)`;
  const lines = [`task ${created.taskId}${reserved}`, `follow it with: ${thisCli()} tasks watch ${created.taskId}`];
  if (created.access)
    lines.push(`public access token (this task's status, for a browser): ${created.access.publicAccessToken}`);
  return lines.join('\n');
}

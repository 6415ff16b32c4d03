/**
 * Webhook delivery benchmark (not a test): the server (a child process) has one dashboard
 * webhook pointing at a receiver in this process; 5,000 no-op tasks are created as fast as
 * they are accepted. Prints events delivered per second and the latency from settlement to
 * receipt (the event is recorded right after the settlement; its createdAt is the start).
 *
 *   npm run bench:webhooks
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const TASKS = Number(process.env.BENCH_TASKS ?? 5000);
const latencies: number[] = [];
const receipts: number[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const now = Date.now();
    receipts.push(now);
    latencies.push(now - Date.parse((JSON.parse(body) as { createdAt: string }).createdAt));
    res.end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const data = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
const server = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/bench-server.ts'), data, '--webhook', hookUrl], { stdio: ['ignore', 'pipe', 'inherit'] });
const line = await new Promise<string>((resolve) => server.stdout!.on('data', (chunk) => resolve(String(chunk).split('\n')[0])));
const [, url, , key] = line.split(' ');

const started = Date.now();
await autocannon({
  url: `${url}/bench/tasks`,
  method: 'POST',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: '{"access":{"pat":{"enabled":false}}}',
  connections: 20,
  amount: TASKS,
});
const created = Date.now();
while (receipts.length < TASKS && Date.now() - created < 120_000) await new Promise((resolve) => setTimeout(resolve, 50));

const sorted = [...latencies].sort((a, b) => a - b);
const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const span = (receipts.at(-1)! - receipts[0]) / 1000;
console.log(`webhooks benchmark — node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
console.log(`${TASKS} tasks created in ${((created - started) / 1000).toFixed(1)} s; ${receipts.length} events received, each signed and journaled (attempt recorded)`);
console.log(`delivered ${Math.round(receipts.length / span)} events/s (first to last receipt over ${span.toFixed(1)} s)`);
console.log(`settlement → receipt: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${sorted.at(-1)} ms (ms resolution; measured while creates were still arriving)`);

server.kill('SIGTERM');
await new Promise((resolve) => server.on('exit', resolve));
receiver.close();
await rm(data, { recursive: true, force: true });

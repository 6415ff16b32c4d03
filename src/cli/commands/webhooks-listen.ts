import type { Command } from 'commander';
import { ApiError, createClient } from '../../client/http-client.js';
import type { WebhookStreamEvent } from '../../client/webhook-events.js';
import { admin } from '../context.js';
import { UsageError } from '../output.js';
import { type CommandContext, command } from '../run.js';
import { chooseServer } from '../server-discovery.js';
import { httpUrlOption } from '../url-option.js';

/** A Standard Webhooks secret: `whsec_` and base64. */
const SECRET = /^whsec_[A-Za-z0-9+/]{16,}={0,2}$/;
/** Waits before connecting again after a stream is lost: from 1 s, doubling to 30 s. */
const FIRST_WAIT_MS = 1000;
const LONGEST_WAIT_MS = 30_000;
/** Refusals of the credential itself: with --account a new token is issued and the stream opened again. */
const REFUSED = new Set(['UNAUTHORIZED', 'TOKEN_EXPIRED', 'INVALID_TOKEN']);

interface ListenOptions {
  account?: string;
  token?: string;
  forwardTo: string;
  events?: string;
  secret?: string;
}

/** The receiver's URL, normalised (a URL as the forwarder posts to it). */
const forwardUrlOf = (text: string): string =>
  new URL(httpUrlOption(text, '--forward-to', 'http://127.0.0.1:3000/hook')).href;

const clock = () => new Date().toTimeString().slice(0, 8);
const say = (line: string) => process.stdout.write(`${line}\n`);

/** One line per event: when, what, and what the receiver answered. */
function eventLine(
  event: Extract<WebhookStreamEvent, { kind: 'event' }>,
  result: { status: number | null; latencyMs: number; error?: string },
): string {
  const answer = `${result.status ?? 'no answer'} (${result.latencyMs} ms)${result.error ? `: ${result.error}` : ''}`;
  return `${clock()}  ${event.type}  ${event.taskId ?? '-'}  ${event.id}  → ${answer}`;
}

/** The first lines: where events go, and the secret that signs them (with --json, one document). */
function sayReady(
  ctx: CommandContext,
  ready: { accountId: string; account?: string; forwardTo: string; secret: string },
): void {
  if (ctx.json)
    say(JSON.stringify({ ready: true, accountId: ready.accountId, forwardTo: ready.forwardTo, secret: ready.secret }));
  else
    say(
      `Ready: forwarding the events of ${ready.account ?? ready.accountId} to ${ready.forwardTo} (Ctrl-C stops)\nsecret ${ready.secret}  (signs each post, Standard Webhooks)`,
    );
}

/**
 * `imgtask webhooks listen`: follows an account's events over the API (GET /webhook/events) and
 * posts each, signed, to a local URL, one line per event with the receiver's answer. The stream is
 * opened again when it is lost (the server restarting, a token expiring under --account);
 * Ctrl-C stops it.
 */
async function listen(ctx: CommandContext, opts: ListenOptions): Promise<number> {
  if ((opts.account === undefined) === (opts.token === undefined))
    throw new UsageError(
      'give --account NAME (its token is issued through the data dir), or --token TOKEN (an access token with the manage scope)',
    );
  const target = forwardUrlOf(opts.forwardTo);
  if (opts.secret !== undefined && !SECRET.test(opts.secret))
    throw new UsageError('--secret is a Standard Webhooks secret: whsec_ and base64 (as a webhook create prints)');
  const { createEventForwarder } = await import('../../app/event-forwarder.js');
  const forwarder = createEventForwarder(target, opts.secret);
  let token = opts.token;
  const tokenOf = async () =>
    (token ??= (await admin(ctx, 'tokens.issue', { account: opts.account!, scopes: ['manage'] })).accessToken);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));

  let connected = false;
  /** A token was issued again after a refusal: another refusal then stops (no loop of refused tokens). */
  let reissued = false;
  let wait = FIRST_WAIT_MS;
  /** The server of the last stream: a server found again on another port (restarted) is named. */
  let lastUrl: string | undefined;
  for (;;) {
    let lost: string;
    try {
      // Chosen again on each connection: a server restarted on another port of the data dir is found.
      const server = await chooseServer(ctx);
      for await (const event of createClient({ ...server, key: await tokenOf() }).webhookEvents(opts.events)) {
        if (event.kind === 'ready') {
          if (!connected)
            sayReady(ctx, {
              accountId: event.accountId,
              account: opts.account,
              forwardTo: target,
              secret: forwarder.secret,
            });
          else if (!ctx.json) say(`${clock()}  connected again${server.url === lastUrl ? '' : ` to ${server.url}`}`);
          lastUrl = server.url;
          connected = true;
          reissued = false;
          wait = FIRST_WAIT_MS;
          continue;
        }
        const result = await forwarder.forward(event);
        say(
          ctx.json
            ? JSON.stringify({ id: event.id, type: event.type, taskId: event.taskId ?? null, ...result })
            : eventLine(event, result),
        );
      }
      lost = 'the server ended the stream';
    } catch (err) {
      const refused = err instanceof ApiError && REFUSED.has(err.code);
      // A refusal of a token we issued: issue another, at once. Any other refusal (4xx), or no server at the first try,
      // stops here with its reason.
      if (refused && opts.account !== undefined && connected && !reissued) {
        reissued = true;
        token = undefined;
        continue;
      }
      if ((err instanceof ApiError && err.status >= 400 && err.status < 500) || !connected) throw err;
      lost = (err as Error).message;
    }
    process.stderr.write(`${clock()}  stream lost (${lost}); connecting again in ${wait / 1000} s\n`);
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(LONGEST_WAIT_MS, wait * 2);
  }
}

export function registerWebhookListen(webhooks: Command): void {
  webhooks
    .command('listen')
    .description(
      "Follow an account's events live over the API and post each, signed, to a local URL (a receiver the service cannot reach); one line per event",
    )
    .option(
      '--account <account>',
      'account name or id (an access token is issued for it through the data dir, as for other operator commands)',
    )
    .option(
      '--token <token>',
      'an access token with the manage scope (imgtask tokens issue), instead of --account: from a machine without the data dir',
    )
    .requiredOption('--forward-to <url>', 'the http(s) URL to post each event to, such as http://127.0.0.1:3000/hook')
    .option('--events <list>', 'comma-separated event kinds (default: all)')
    .option(
      '--secret <secret>',
      'sign with this whsec_… secret instead of a new one (your receiver keeps its config across runs)',
    )
    .option('--json', 'one JSON document per line: the ready line, then each event forwarded')
    .action(command((ctx, opts: ListenOptions) => listen(ctx, opts)));
}

import { type DestinationStream, type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../config/schema.js';

export type { Logger } from 'pino';

type LogSettings = Config['log'];

/**
 * The service log: JSON lines (pino) by default, pretty lines when `format` is `pretty`, or
 * `auto` and the output is a terminal. Pretty printing runs in-process (no worker thread), and
 * colours follow the terminal (NO_COLOR turns them off). `destination` defaults to stdout;
 * tests hand a stream of their own.
 */
export function createLogger(
  settings: LogSettings,
  options: { destination?: DestinationStream & { isTTY?: boolean } } = {},
): Logger {
  const destination = options.destination ?? process.stdout;
  const prettyLines = settings.format === 'pretty' || (settings.format === 'auto' && Boolean(destination.isTTY));
  // Levels by name ("level":"info"), ISO times, no pid/hostname: what log shippers read as is.
  const base = {
    level: settings.level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  if (!prettyLines) return pino(base, options.destination ?? pino.destination({ dest: 1, sync: false }));
  return pino(
    base,
    pretty({ destination, sync: true, singleLine: true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' }),
  );
}

/** A logger that writes nothing: what services get when they are handed none. */
export const silentLogger = (): Logger => pino({ level: 'silent' }, { write: () => undefined });

const WARNING =
  /\b(fail|failed|failure|refused|refusing|disabled|dropped|not recorded|could not|did not|unexpected)\b/i;

/**
 * The services' plain `log(message)` over a structured logger. A message's leading `word:`
 * becomes its `component` field; a message that reports a failure is logged as a warning.
 */
export function messageLog(logger: Logger): (message: string) => void {
  return (message) => {
    const component = /^([a-z][\w.-]{0,30}): /.exec(message)?.[1];
    const fields = component ? { component } : {};
    if (message.startsWith('fatal:') || message.startsWith('store: journal write failed'))
      logger.error(fields, message);
    else if (WARNING.test(message)) logger.warn(fields, message);
    else logger.info(fields, message);
  };
}

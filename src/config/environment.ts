/**
 * What the CLI needs of the config layer before any command runs: the environment settings and
 * the error type. Kept apart from the schema (zod) so that `imgtask --help` does not load it.
 */

// The error type lives in domain, so layers below config can throw it too.
export { ConfigError } from '../domain/config-error.js';

/** Settings that are not config but come from the environment, read only here. */
export const environment = {
  dataDir: (): string | undefined => process.env.IMGTASK_DATA,
  configFile: (): string | undefined => process.env.IMGTASK_CONFIG,
  serverUrl: (): string | undefined => process.env.IMGTASK_URL,
  apiKey: (): string | undefined => process.env.IMGTASK_API_KEY,
  /** PATH: where the user's shell finds commands (what the CLI tells them to type names one it finds). */
  path: (): string | undefined => process.env.PATH,
  /** XDG_RUNTIME_DIR: the user's private runtime folder, where running servers note their data dir. */
  runtimeDir: (): string | undefined => process.env.XDG_RUNTIME_DIR || undefined,
  /**
   * What says which terminal this is (TERM, TERM_PROGRAM) and whether it runs inside tmux or screen (TMUX, STY): for
   * inline previews.
   */
  terminal: (): { TERM?: string; TERM_PROGRAM?: string; TMUX?: string; STY?: string } => ({
    TERM: process.env.TERM,
    TERM_PROGRAM: process.env.TERM_PROGRAM,
    TMUX: process.env.TMUX,
    STY: process.env.STY,
  }),
  /** A provider key named by `apiKeyEnv`. */
  secret: (name: string): string | undefined => process.env[name],
  /**
   * NO_COLOR (https://no-color.org, any non-empty value) turns colours and styles off. Ink draws
   * through chalk, which reads FORCE_COLOR (not NO_COLOR) once when loaded: set it to 0 first.
   */
  applyNoColor: (): void => {
    if (process.env.NO_COLOR) process.env.FORCE_COLOR = '0';
  },
};

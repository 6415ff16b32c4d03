/**
 * A config (or what it names: a file, a secret, a certificate) that cannot be used: the start or reload stops with its
 * message.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

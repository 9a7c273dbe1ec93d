/** A configuration problem: the CLI prints it and exits 2. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

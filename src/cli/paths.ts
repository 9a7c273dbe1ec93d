/**
 * Files where the user is. `npm run conformance` runs the command in the package's root, whatever
 * directory it was typed in; npm says that directory in INIT_CWD. Relative paths the user gives
 * (--report-dir, --openapi, --expectations, key files) and the .env file are taken from there,
 * and the paths the console prints are relative to it, so each works where the user is.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { readRegularText, UnreadableFile } from '../harness/regular-file';

const isDirectory = (dir: string) => {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
};

const real = (dir: string) => {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
};

/**
 * The directory the user ran the command from: INIT_CWD under npm, else the working directory.
 * INIT_CWD is taken only while the working directory is npm's doing (the root of the package whose
 * package.json npm names in npm_package_json): a script that changed directory itself (`cd api &&
 * conformance`) meant that one, and INIT_CWD inherited from an outer npm run is not the user's.
 */
export function userDir(env: NodeJS.ProcessEnv): string {
  const init = env.INIT_CWD;
  if (!init || !path.isAbsolute(init) || !isDirectory(init)) return process.cwd();
  if (env.npm_package_json && real(path.dirname(env.npm_package_json)) !== real(process.cwd())) return process.cwd();
  return path.resolve(init);
}

/** A path the user gave, as this process must open it: from the user's directory when that is not the working directory. */
export function fromUserDir(file: string, env: NodeJS.ProcessEnv): string {
  const dir = userDir(env);
  return path.isAbsolute(file) || dir === process.cwd() ? file : path.resolve(dir, file);
}

/** A path as the console prints it: one that works from the user's directory. */
export function shownPath(file: string, env: NodeJS.ProcessEnv): string {
  const dir = userDir(env);
  if (dir === process.cwd()) return file;
  const relative = path.relative(dir, path.resolve(file));
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : path.resolve(file);
}

/** The .env file read for this process, if one was (said by the run, through the gate). */
let dotenvRead: string | undefined;
/** Why the .env file in the user's directory could not be read (a FIFO, a device, too large): a configuration mistake. */
let dotenvRefused: string | undefined;

/** A .env holds a few settings; past this it is not one (and a link to /dev/zero never ends). */
export const MAX_DOTENV_BYTES = 1 << 20;

/**
 * Read `.env` from the user's directory into process.env (values already set win). Idempotent:
 * the early start (run.ts) and the run (main.ts) both call it. Returns the file read, if any.
 * Never throws: a `.env` that is no regular file, or is too large, is kept as the reason for the
 * run to refuse (dotenvProblem), since a FIFO would block the read forever.
 */
export function loadUserDotenv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (dotenvRead !== undefined || dotenvRefused !== undefined) return dotenvRead;
  const file = path.join(userDir(env), '.env');
  if (!existsSync(file)) return undefined;
  let text: string;
  try {
    text = readRegularText(file, MAX_DOTENV_BYTES, file);
  } catch (err) {
    if (!(err instanceof UnreadableFile)) throw err;
    dotenvRefused = err.message;
    return undefined;
  }
  for (const [name, value] of Object.entries(parseDotenv(text))) if (process.env[name] === undefined) process.env[name] = value;
  dotenvRead = file;
  return file;
}

/** Why the user's .env was not read, when it exists but is no regular file of a bounded size. */
export const dotenvProblem = (): string | undefined => dotenvRefused;

/** The .env file this process read, if any. */
export const dotenvFile = (): string | undefined => dotenvRead;

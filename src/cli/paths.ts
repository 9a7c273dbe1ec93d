/**
 * Files where the user is. `npm run conformance` runs the command in the package's root, whatever
 * directory it was typed in; npm says that directory in INIT_CWD. Relative paths the user gives
 * (--report-dir, --openapi, --expectations, key files) and the .env file are taken from there,
 * and the paths the console prints are relative to it, so each works where the user is.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { config as loadDotenv } from 'dotenv';

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

/**
 * Read `.env` from the user's directory into process.env (values already set win). Idempotent:
 * the early start (run.ts) and the run (main.ts) both call it. Returns the file read, if any.
 */
export function loadUserDotenv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (dotenvRead !== undefined) return dotenvRead;
  const file = path.join(userDir(env), '.env');
  if (!existsSync(file)) return undefined;
  loadDotenv({ path: file, quiet: true });
  dotenvRead = file;
  return file;
}

/** The .env file this process read, if any. */
export const dotenvFile = (): string | undefined => dotenvRead;

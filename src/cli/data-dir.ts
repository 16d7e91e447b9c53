// Which database folder a CLI command opens, and telling the user when one is created.

import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IN_MEMORY } from '../core/database.js';

/** The folder commands open when none is given. */
export const DEFAULT_DB_DIR = './quiverdb-data';
/** The default folder of the releases named GraphDB, still opened when it is there. */
export const LEGACY_DB_DIR = './graphdb-data';

/** A database folder to open, and what to do before and after. */
export interface DataDir {
  dir: string;
  /** Writes to stderr what the user should know about the folder before it opens. */
  announce(): void;
  /** Removes the folder when it was a temporary one (after the database closed). */
  cleanup(): void;
}

function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The folder for `given` (the command's DB_DIR argument, undefined when left out): `given`
 * itself, else ./quiverdb-data, or ./graphdb-data when only that one is there. A folder about
 * to be created is said on stderr, so that no command creates one silently in the working
 * folder. `temporary`: with no folder given, a new folder under the system's temporary folder,
 * removed by cleanup() (`serve --demo`).
 */
export function resolveDataDir(given: string | undefined, temporary = false): DataDir {
  if (given === undefined && temporary) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'quiverdb-demo-'));
    return {
      dir,
      announce: () =>
        process.stderr.write(
          `quiverdb: a temporary database in ${dir}, removed at exit (give DB_DIR to keep one)\n`,
        ),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  let dir = given ?? DEFAULT_DB_DIR;
  if (given === undefined && !isFolder(DEFAULT_DB_DIR) && isFolder(LEGACY_DB_DIR)) dir = LEGACY_DB_DIR;
  const created = dir !== IN_MEMORY && !existsSync(dir);
  return {
    dir,
    announce: () => {
      if (created) process.stderr.write(`quiverdb: creating the database folder ${path.resolve(dir)}\n`);
    },
    cleanup: () => {},
  };
}

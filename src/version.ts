import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The package's version, from its package.json (beside src/ and dist/); '0.0.0' when it cannot
 * be read. `graphdb --version` prints it and GET /status reports it.
 */
export const VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
})();

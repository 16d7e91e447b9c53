#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

main(process.argv).catch((error) => {
  process.stderr.write(`graphdb: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});

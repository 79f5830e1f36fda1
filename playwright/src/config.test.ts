import { expect, test } from '@playwright/test';
import { defineAcpConfig } from './config.js';

test('protocols: one project per version, each with its own record twin, snapshots and version', () => {
  const config = defineAcpConfig({
    agents: { claude: { command: ['claude'] } },
    model: { kind: 'http' },
    record: { upstream: { baseUrlEnv: 'U', apiKeyEnv: 'K' } },
    protocols: [1, 2],
  });
  const projects = (config.projects ?? []).map((p) => ({
    name: p.name,
    version: p.use?.protocolVersion,
    metadata: p.metadata,
    snapshots: p.snapshotPathTemplate,
  }));
  expect(projects).toEqual([
    { name: 'claude', version: 1, metadata: { protocolVersion: 1 }, snapshots: undefined },
    { name: 'claude-v2', version: 2, metadata: { protocolVersion: 2 }, snapshots: undefined },
    { name: 'acp-coverage', version: undefined, metadata: { failOnGap: false }, snapshots: undefined },
    {
      name: 'claude:record',
      version: 1,
      metadata: { protocolVersion: 1 },
      snapshots: '{testDir}/__acp__/{testFilePath}/claude/{arg}{ext}',
    },
    {
      name: 'claude-v2:record',
      version: 2,
      metadata: { protocolVersion: 2 },
      snapshots: '{testDir}/__acp__/{testFilePath}/claude-v2/{arg}{ext}',
    },
  ]);
  // The config's own snapshot path keeps the project's name: each version has its own directory.
  expect(config.snapshotPathTemplate).toBe('{testDir}/__acp__/{testFilePath}/{projectName}/{arg}{ext}');
});

test('without protocols, one project per agent on its profile version; a version named twice is refused', () => {
  const config = defineAcpConfig({ agents: { a: { command: ['a'], protocolVersion: 'highest' } } });
  expect(config.projects?.[0]).toMatchObject({ name: 'a', metadata: { protocolVersion: 'highest' } });
  expect(config.projects?.[0]?.use?.protocolVersion).toBeUndefined();
  expect(() => defineAcpConfig({ agents: { a: { command: ['a'] } }, protocols: [2, 2] })).toThrow(
    'defineAcpConfig: protocols [2,2] must name each version once, e.g. protocols: [1, 2]',
  );
});

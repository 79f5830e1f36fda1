import { readFileSync } from 'node:fs';
import { checkDef, SCHEMA_PATH } from '@acp-snapshot/conformance';
import { expect, test } from '@playwright/test';
import type { z } from 'zod';
import { PromptBlock, undeclaredBlock } from './prompt-content.js';

type Def = { properties?: Record<string, unknown>; allOf?: { $ref: string }[]; anyOf?: Def[]; oneOf?: Def[] };
const defs = (JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as { $defs: Record<string, Def> }).$defs;

/** The property names a schema definition allows, following its allOf references. */
function schemaKeys(def: Def): string[] {
  const own = Object.keys(def.properties ?? {});
  const referenced = (def.allOf ?? []).flatMap((r) => schemaKeys(defs[r.$ref.replace('#/$defs/', '')]!));
  return [...new Set([...own, ...referenced])].sort();
}

/** The field names of one zod object option. */
const zodKeys = (schema: z.ZodType) => Object.keys((schema as z.ZodObject).shape).sort();

test('every block kind has exactly the fields of its ACP v1 schema definition', () => {
  const branches = defs.ContentBlock!.oneOf!;
  expect(branches).toHaveLength(PromptBlock.options.length);
  for (const option of PromptBlock.options) {
    const type = (option.shape.type as z.ZodLiteral<string>).value;
    const branch = branches.find(
      (b) => (b.properties?.type as { const?: string } | undefined)?.const === type,
    );
    expect(branch, `schema branch for "${type}"`).toBeDefined();
    expect(zodKeys(option), type).toEqual(schemaKeys(branch!));
  }
  // The embedded resource's two forms: text and blob.
  const resource = PromptBlock.options.find((o) => o.shape.type.value === 'resource')!;
  const [text, blob] = (
    (resource.shape as Record<string, z.ZodType>).resource as z.ZodUnion<[z.ZodObject, z.ZodObject]>
  ).options;
  expect(zodKeys(text)).toEqual(schemaKeys(defs.TextResourceContents!));
  expect(zodKeys(blob)).toEqual(schemaKeys(defs.BlobResourceContents!));
});

test('what the scenario format accepts is a valid ACP ContentBlock', () => {
  const samples = [
    { type: 'text', text: 'hi', annotations: { audience: ['user'], priority: 1 } },
    { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png', uri: 'file:///a.png' },
    { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
    {
      type: 'resource_link',
      uri: 'file:///w/a.txt',
      name: 'a.txt',
      title: 'A',
      size: 12,
      mimeType: 'text/plain',
    },
    { type: 'resource', resource: { uri: 'file:///w/b.md', text: '# B', mimeType: 'text/markdown' } },
    { type: 'resource', resource: { uri: 'file:///w/c.bin', blob: 'AAEC' }, _meta: { k: 1 } },
  ];
  for (const sample of samples) {
    expect(PromptBlock.parse(sample)).toEqual(sample);
    expect(checkDef('ContentBlock', sample), JSON.stringify(sample)).toBeUndefined();
  }
});

test('image, audio and embedded resources need the prompt capability the agent declared', () => {
  const blocks = PromptBlock.array().parse([
    { type: 'text', text: 'a' },
    { type: 'resource_link', uri: 'file:///a', name: 'a' },
    { type: 'resource', resource: { uri: 'file:///b', text: 'b' } },
  ]);
  expect(undeclaredBlock(blocks.slice(0, 2), undefined)).toBeUndefined();
  expect(undeclaredBlock(blocks, { embeddedContext: true })).toBeUndefined();
  expect(undeclaredBlock(blocks, { image: true })).toBe(
    `content[2] (type "resource") needs promptCapabilities.embeddedContext, which the agent's initialize result does not declare (ACP: a client sends only the prompt content an agent declares)`,
  );
  const audio = PromptBlock.array().parse([{ type: 'audio', data: 'AA==', mimeType: 'audio/wav' }]);
  expect(undeclaredBlock(audio, { audio: null })).toMatch(
    /^content\[0\] \(type "audio"\) needs promptCapabilities\.audio/,
  );
});

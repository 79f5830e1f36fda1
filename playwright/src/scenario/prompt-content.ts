/**
 * The content blocks a scenario's prompt may send (`"content"` of a prompt step): the ACP v1
 * `ContentBlock` kinds, strict (an unknown or misspelt field is an error naming it, not silently sent),
 * and which of them the agent must have declared in `promptCapabilities` before a client may send them.
 */
import { z } from 'zod';

const meta = z.record(z.string(), z.unknown()).nullish();

const Annotations = z
  .strictObject({
    audience: z.array(z.enum(['user', 'assistant'])).nullish(),
    lastModified: z.string().nullish(),
    priority: z.number().nullish(),
    _meta: meta,
  })
  .nullish();

const base64 = z.base64('must be base64 (the bytes of the image, audio or blob)');

const TextResource = z.strictObject({
  uri: z.string().min(1),
  text: z.string(),
  mimeType: z.string().nullish(),
  _meta: meta,
});
const BlobResource = z.strictObject({
  uri: z.string().min(1),
  blob: base64,
  mimeType: z.string().nullish(),
  _meta: meta,
});

/** One ACP v1 ContentBlock, as the SDK's schema/v1/schema.json defines it (every field, nothing else). */
export const PromptBlock = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string(), annotations: Annotations, _meta: meta }),
  z.strictObject({
    type: z.literal('image'),
    data: base64,
    mimeType: z.string().min(1),
    uri: z.string().nullish(),
    annotations: Annotations,
    _meta: meta,
  }),
  z.strictObject({
    type: z.literal('audio'),
    data: base64,
    mimeType: z.string().min(1),
    annotations: Annotations,
    _meta: meta,
  }),
  z.strictObject({
    type: z.literal('resource_link'),
    uri: z.string().min(1),
    name: z.string(),
    title: z.string().nullish(),
    description: z.string().nullish(),
    mimeType: z.string().nullish(),
    size: z.number().int().nonnegative().nullish(),
    annotations: Annotations,
    _meta: meta,
  }),
  z.strictObject({
    type: z.literal('resource'),
    resource: z.union([TextResource, BlobResource]),
    annotations: Annotations,
    _meta: meta,
  }),
]);
export type PromptBlock = z.infer<typeof PromptBlock>;

/**
 * The prompt capability each block kind needs (ACP v1: every agent takes text and resource links;
 * images, audio and embedded resources only when `promptCapabilities` declares them).
 */
const NEEDS: Partial<Record<PromptBlock['type'], 'image' | 'audio' | 'embeddedContext'>> = {
  image: 'image',
  audio: 'audio',
  resource: 'embeddedContext',
};

/** What an initialize result declared about prompts (all false when the agent said nothing). */
export interface PromptCapabilities {
  image?: boolean | null;
  audio?: boolean | null;
  embeddedContext?: boolean | null;
}

/**
 * The first block the agent did not declare it accepts, as a sentence naming it and the capability, or
 * undefined when the agent declared every block of the prompt. The harness refuses to send such a
 * prompt (an ACP client must not) rather than snapshot an agent's reaction to a protocol violation.
 */
export function undeclaredBlock(
  blocks: readonly PromptBlock[],
  caps: PromptCapabilities | undefined,
): string | undefined {
  for (const [i, block] of blocks.entries()) {
    const need = NEEDS[block.type];
    if (need && caps?.[need] !== true) {
      return `content[${i}] (type "${block.type}") needs promptCapabilities.${need}, which the agent's initialize result does not declare (ACP: a client sends only the prompt content an agent declares)`;
    }
  }
  return undefined;
}

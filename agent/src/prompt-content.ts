import { type ContentBlock, RequestError } from '@agentclientprotocol/sdk';

/**
 * Turns a session/prompt's content blocks into the user message text the model sees. Supported (and
 * declared in promptCapabilities): text, resource links (named, not fetched: the model can read them
 * with its tools) and embedded text resources (inlined). Images and audio are declared unsupported,
 * so a client sending them gets invalid params.
 */
export function promptToText(blocks: ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'resource_link':
        parts.push(`[${block.title ?? block.name}](${block.uri})`);
        break;
      case 'resource':
        if ('text' in block.resource) {
          parts.push(`<resource uri="${block.resource.uri}">\n${block.resource.text}\n</resource>`);
        } else {
          parts.push(`[binary resource ${block.resource.uri} omitted: only text resources are supported]`);
        }
        break;
      default:
        throw RequestError.invalidParams(
          { type: block.type },
          `prompt content of type "${block.type}" is not supported (see promptCapabilities)`,
        );
    }
  }
  return parts.join('\n\n');
}

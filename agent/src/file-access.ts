import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AgentContext, FileSystemCapabilities } from '@agentclientprotocol/sdk';
import type { FileAccess } from './tools/types.js';

/** Local disk access, used for whatever the client does not offer through fs/*. */
export const localFileAccess: FileAccess = {
  readText: (absPath) => readFile(absPath, 'utf8'),
  writeText: async (absPath, content) => {
    await mkdir(dirname(absPath), { recursive: true });
    await writeFile(absPath, content, 'utf8');
  },
};

/**
 * File access through the client's fs/read_text_file and fs/write_text_file when it advertised them
 * (so the editor sees unsaved buffers and tracks edits), else the local disk, per method.
 */
export function createFileAccess(
  client: AgentContext,
  sessionId: string,
  capabilities: FileSystemCapabilities | undefined,
): FileAccess {
  return {
    readText: capabilities?.readTextFile
      ? async (path) => (await client.request('fs/read_text_file', { sessionId, path })).content
      : localFileAccess.readText,
    writeText: capabilities?.writeTextFile
      ? async (path, content) => {
          await client.request('fs/write_text_file', { sessionId, path, content });
        }
      : localFileAccess.writeText,
  };
}

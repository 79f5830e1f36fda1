/** The ACP SDK 1.9 example agent (aliased devDependency `acp-sdk-example`): another team's agent; it calls no model. */
import { join } from 'node:path';
import { REPO_ROOT } from '../scenario/corpus.js';

export const SDK_EXAMPLE_AGENT = join(
  REPO_ROOT,
  'node_modules',
  'acp-sdk-example',
  'dist',
  'examples',
  'agent.js',
);

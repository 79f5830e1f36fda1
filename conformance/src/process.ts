/**
 * `@acp-snapshot/conformance/process`: the agent's process spawn alone (the driver's), without the kit's checks
 * and schema, so a bundle that needs only the spawn does not load them.
 */
export { spawnPiped } from './piped-child.js';

/**
 * `@acp-snapshot/conformance/testing`: the fake agent the kit's own tests run, for this repository's tests
 * (not part of what the harness ships).
 */
export { FAKE_AGENT, FAKE_AGENT_V2, fakeTarget, plainTargetEnv } from './fake-target.js';

// `@acp-snapshot/model-http/testing`: the stand-in upstream, the raw HTTP client and request builders the
// package's tests and the bench use.
export * from './fake-upstream.js';
export * from './raw-client.js';
export * from './requests.js';

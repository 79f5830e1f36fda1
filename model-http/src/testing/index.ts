// `@acp-snapshot/model-http/testing`: the stand-in upstream, the raw HTTP client and the request builders the
// harness's tests and the bench use, named one by one (the package's own tests import the files).
export { startFakeUpstream } from './fake-upstream.js';
export { rawRequest } from './raw-client.js';
export { largeChatRequest } from './requests.js';

/**
 * @acp-snapshot/model-http: what other packages use of it (the harness, e2e), named one by one (decision 0025:
 * no `export *`, so an entry shows what it offers and an internal helper does not leak out).
 */
export {
  type Exchange,
  ExchangeLogError,
  parseExchanges,
  readExchangeLog,
  referencedSidecars,
  serializeExchanges,
  writeExchangeLog,
} from './exchange-log.js';
export type { ModelFault } from './faults.js';
export { frameBytes } from './frames.js';
export { exchangeLogChanges, formatLogChanges } from './log-changes.js';
export { fingerprint, type NormalizeOptions, RequestNormalizer } from './normalize.js';
export {
  findSecrets,
  isIdentifyingHome,
  isIdentifyingUserName,
  machineSecrets,
  type Secrets,
  scrub,
} from './secrets.js';
export { type ModelServer, startModelServer } from './server.js';
export type { Verdict } from './verdict.js';

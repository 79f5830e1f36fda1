// The model emulator's public API: start a scripted server, load and validate scripts.

export {
  loadScript,
  parseScript,
  SCRIPT_DOC,
  type Script,
  type ScriptChunking,
  type ScriptEntry,
  ScriptError,
  type ScriptFail,
  type ScriptMatch,
  type ScriptReply,
} from './script.js';
export {
  type Emulator,
  type EmulatorOptions,
  type LoggedRequest,
  type Served,
  startEmulator,
} from './server.js';

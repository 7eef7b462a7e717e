// Dredd loads hook files with require() and hands them its `hooks` object as
// the module "hooks". The gate's hooks live in dredd.ts, in the gate's own
// process; this file passes Dredd's object over to them.
const hooks = require('hooks');

const install = globalThis[Symbol.for('workspace-user-api.contract-gate.installHooks')];
if (typeof install !== 'function') throw new Error('dredd-hooks.cjs is loaded by gate/dredd.ts, not by the dredd CLI');
install(hooks);

/**
 * What `npm run contract` checks when it is given no --base-url: a deployment
 * of its own, made as an operator makes one. The compiled service (`npm start`)
 * on a temporary SQLite database, with response validation on and
 * TRUST_PROXY=loopback (so that the gate can trip the failed-credential
 * throttle for made-up addresses, never for its own); the first key it prints;
 * the admin command on the same database for the keys and groups the API
 * cannot create. From there on it is checked like any deployment (target.ts).
 *
 * A deployment cannot be made to fail on demand, so the declared 500 and 503
 * answers are left unchecked here; the gate's self-check in `npm test`
 * (gate/gate.system.test.ts) runs the app in process and injects them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServiceProcess } from '../lib/testing/service-process.js';
import { connectDeployment, type GateTarget } from './target.js';

export async function startLocalDeployment(): Promise<GateTarget> {
  const directory = await mkdtemp(join(tmpdir(), 'contract-gate-'));
  const databaseUrl = `sqlite:${join(directory, 'workspace.db')}`;
  const service = await startServiceProcess({ DATABASE_URL: databaseUrl, VALIDATE_RESPONSES: 'true', TRUST_PROXY: 'loopback' });
  const close = async () => {
    await service.stop('SIGTERM');
    await rm(directory, { recursive: true, force: true });
  };
  try {
    const admin = service.printedKey();
    if (!admin) throw new Error(`the service printed no first key:\n${service.stdout()}`);
    const deployment = await connectDeployment({ baseUrl: service.url, admin, databaseUrl });
    return {
      ...deployment,
      description: 'its own deployment (the compiled service on a temporary SQLite database, response validation on)',
      trustsForwardedFor: true,
      logs: () => service.stdout(),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

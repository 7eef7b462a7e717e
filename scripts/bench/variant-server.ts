/**
 * The service assembled from the same parts as main.ts, run under tsx, in
 * one of three variants (BENCH_VARIANT): `as-served`, `no-validation` (no
 * contract validation before the routes) or `no-audit` (an audit trail that
 * writes nothing). The benchmark runs update_user against each to show what
 * validation and the audit trail cost, all three alike under tsx so that only
 * the part left out differs. The variants are composed here, never in the
 * service. Never a way to serve.
 */
import type { RequestHandler } from 'express';
import { createApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { createHandlers } from '../../server/handlers/index.js';
import { contractValidation } from '../../server/http/contract-validation.js';
import { scimContractValidation } from '../../server/scim/contract.js';
import { createScimHandlers } from '../../server/scim/routes.js';
import { serve } from '../../server/http/lifecycle.js';
import { applyHeapSettings } from '../../server/heap.js';
import { createLogger } from '../../server/logger.js';
import { type AuditTrail, AuditWriter } from '../../server/store/audit-repository.js';
import { assembleStore, openDatabase } from '../../server/store/open-store.js';

const variant = process.env.BENCH_VARIANT ?? 'as-served';
if (!['as-served', 'no-validation', 'no-audit'].includes(variant)) throw new Error(`unknown BENCH_VARIANT ${variant}`);
applyHeapSettings();
const config = loadConfig();
const logger = createLogger(config.logLevel);

/** The no-audit variant's trail: every change goes unrecorded. */
const unrecorded: AuditTrail = { record: async () => {}, recordAll: async () => {} };
/** The no-validation variant's: requests go straight to the routes. */
const unvalidated: RequestHandler[] = [(_req, _res, next) => next()];

const opened = await openDatabase(config.databaseUrl);
await opened.migrate();
const store = assembleStore(opened, { audit: variant === 'no-audit' ? unrecorded : new AuditWriter(opened.db, opened.traits) });
const app = createApp({
  store,
  handlers: createHandlers({ store }),
  validation: variant === 'no-validation' ? unvalidated : contractValidation({ responses: false }),
  scimHandlers: createScimHandlers(store),
  scimValidation: scimContractValidation({ responses: false }),
  logger,
  authThrottle: config.authThrottle,
});
serve(app, {
  name: `workspace service, ${variant} (benchmark only)`,
  host: config.host,
  port: config.port,
  logger,
  onClose: () => store.close(),
});

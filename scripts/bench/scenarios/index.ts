/**
 * The bench's scenarios, in the order `npm run bench` runs them, each on servers of its own,
 * one after another; `--only` names them as their functions are named.
 */
import type { ScenarioOutcome } from '../kit.js';
import { auditPage } from './audit-page.js';
import { events } from './events.js';
import { listing } from './listing.js';
import { memory } from './memory.js';
import { postgres } from './postgres.js';
import { processes } from './processes.js';
import type { BenchRun } from './run.js';
import { scim } from './scim.js';
import { writes } from './writes.js';

export const SCENARIOS: readonly ((run: BenchRun) => Promise<ScenarioOutcome>)[] = [
  writes,
  events,
  auditPage,
  memory,
  listing,
  scim,
  postgres,
  processes,
];

export const SCENARIO_NAMES: readonly string[] = SCENARIOS.map((scenario) => scenario.name);
